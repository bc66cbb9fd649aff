import { Option, type Command } from 'commander';
import { InputError } from '../../core/errors.js';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { recipeOf } from '../../core/policies/optimal.js';
import { describePolicy, parsePolicySpec, POLICY_NAMES } from '../../core/policies/registry.js';
import { MAX_SEED } from '../../core/random/rng.js';
import { simulate, type StreamPrior } from '../../core/simulate/simulate.js';
import { DEFAULT_STREAM_CONFIG, parseStreamConfig } from '../../core/stream/stream-config.js';
import { fixed, percent } from '../../analysis/number-format.js';
import { printJson } from '../format.js';
import { integerIn, numberIn } from '../options.js';
import { seedOption } from '../stream-options.js';

interface SimulateFlags {
  policy: string;
  k?: number;
  prior: 'benchmark' | 'dirichlet';
  alpha?: number;
  classes?: number;
  streams: number;
  length?: number;
  budget: number;
  charge: number;
  seed: number;
  json?: boolean;
}

function priorFrom(flags: SimulateFlags): StreamPrior {
  const length = flags.length ?? DEFAULT_STREAM_CONFIG.length;
  if (flags.prior === 'benchmark') {
    if (flags.classes !== undefined) throw new InputError('--classes: the benchmark generator always has 8 families');
    return { kind: 'benchmark', config: parseStreamConfig({ length, budget: Math.min(DEFAULT_STREAM_CONFIG.budget, length) }) };
  }
  return { kind: 'dirichlet', alpha: flags.alpha ?? 1, classCount: flags.classes ?? FAMILY_NAMES.length, length };
}

function checkFlagsApply(flags: SimulateFlags): void {
  if (flags.k !== undefined && flags.policy !== 'commit-at-k') throw new InputError('--k: applies only to --policy commit-at-k');
  if (flags.alpha !== undefined && flags.prior !== 'dirichlet' && flags.policy !== 'bayes') {
    throw new InputError('--alpha: applies only to --prior dirichlet or --policy bayes');
  }
  if (flags.seed + flags.streams - 1 > MAX_SEED) throw new InputError(`--seed: seed + streams - 1 must not exceed ${MAX_SEED}`);
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('mean utility per stream of a reference policy over many simulated streams (Appendix A)')
    .addOption(new Option('--policy <name>', 'reference policy').choices(POLICY_NAMES).makeOptionMandatory())
    .option('--k <k>', 'occurrence at which commit-at-k commits', integerIn(1, 1000))
    .addOption(
      new Option('--prior <kind>', 'stream source: benchmark (the generator) or dirichlet (Appendix A.1 prior)')
        .choices(['benchmark', 'dirichlet'])
        .default('benchmark'),
    )
    .option(
      '--alpha <A>',
      'symmetric Dirichlet concentration, for the dirichlet prior and the bayes policy (default 1)',
      numberIn(0, 1000, { exclusiveMin: true }),
    )
    .option('--classes <N>', 'number of classes under the dirichlet prior (default 8)', integerIn(2, 255))
    .option('--streams <N>', 'number of streams', integerIn(1, 10_000_000), 40_000)
    .option('--length <T>', 'items per stream (default 60)', integerIn(1, 100_000))
    .option('--budget <B>', "the session's budget B (the generator keeps its trap window of 3)", integerIn(1, 255), 3)
    .option('--charge <K>', 'visible one-time charge per commitment', numberIn(0, 1_000_000), 0)
    .option('--seed <S>', 'stream i uses seed S + i', seedOption, 0)
    .option('--json', 'print one JSON object')
    .action((flags: SimulateFlags) => {
      checkFlagsApply(flags);
      const parsed = parsePolicySpec(flags.policy, { k: flags.k, alpha: flags.alpha });
      const prior = priorFrom(flags);
      // The optimal policy knows the generator's recipe (under the dirichlet prior it keeps the paper's).
      const policy = parsed.name === 'optimal' && prior.kind === 'benchmark' ? { ...parsed, recipe: recipeOf(prior.config) } : parsed;
      const { streams, budget, charge, seed } = flags;
      const result = simulate({ policy, prior, streams, budget, charge, seed });
      const { pooled } = result;
      const summary = {
        policy: describePolicy(policy),
        prior,
        streams,
        seeds: { first: seed, last: seed + streams - 1 },
        budget,
        charge,
        meanUtility: result.meanUtility,
        standardError: result.utilityStandardError,
        meanNet: result.meanNet,
        netStandardError: result.netStandardError,
        meanOptimum: pooled.meanOptimum,
        score: pooled.score,
        firstSight: pooled.firstSight,
        firstSightHazard: pooled.firstSightHazard,
        commitmentsPerStream: pooled.commitmentsPerSession,
        meanLateness: pooled.meanLateness,
      };
      if (flags.json) return printJson(summary);
      const source = prior.kind === 'dirichlet' ? `dirichlet(alpha=${prior.alpha}, N=${prior.classCount})` : 'the benchmark generator';
      const lines = [
        `${summary.policy} on ${streams} streams from ${source} · T=${prior.kind === 'dirichlet' ? prior.length : prior.config.length} B=${budget} K=${charge} · seeds ${seed}..${seed + streams - 1}`,
        `mean utility per stream  ${fixed(result.meanUtility, 3)} ± ${fixed(result.utilityStandardError, 3)} (standard error)`,
        ...(charge > 0 ? [`mean net per stream      ${fixed(result.meanNet, 3)} ± ${fixed(result.netStandardError, 3)}`] : []),
        `hindsight optimum        ${fixed(pooled.meanOptimum, 3)} per stream · Score ${percent(pooled.score)}`,
        `first-sight ${percent(pooled.firstSight)} · commitments per stream ${fixed(pooled.commitmentsPerSession)} · mean lateness ${fixed(pooled.meanLateness)}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
