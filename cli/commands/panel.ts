import type { Command } from 'commander';
import { panelSeeds, type StreamConfig } from '../../core/stream/stream-config.js';
import { MAX_SEED } from '../../core/random/rng.js';
import { recipeOf } from '../../core/policies/optimal.js';
import type { PolicySpec } from '../../core/policies/registry.js';
import { runPanel } from '../../core/simulate/panel.js';
import { fixed, percent } from '../../analysis/number-format.js';
import { printJson, table } from '../format.js';
import { numberIn, seedList } from '../options.js';
import { addStreamOptions, streamConfigFrom, type StreamFlags } from '../stream-options.js';

/** The reference policies; `optimal` knows the panel generator's recipe. */
const referencePolicies = (config: StreamConfig): readonly PolicySpec[] => [
  { name: 'eager' },
  { name: 'commit-at-k', k: 2 },
  { name: 'commit-at-k', k: 3 },
  { name: 'bayes', alpha: 1 },
  { name: 'optimal', recipe: recipeOf(config) },
  { name: 'hindsight' },
];

export function registerPanel(program: Command): void {
  addStreamOptions(
    program
      .command('panel')
      .description('play the reference policies on the seed panel in process and print their metrics')
      .option('--seeds <list>', 'seeds, e.g. 2000-2023 or 2000,2005', seedList(0, MAX_SEED), panelSeeds())
      .option('--charge <K>', 'visible one-time charge per commitment', numberIn(0, 1_000_000), 0)
      .option('--json', 'print one JSON object'),
  ).action((flags: StreamFlags & { seeds: number[]; charge: number; json?: boolean }) => {
    const config = streamConfigFrom(flags);
    const rules = { budget: config.budget, charge: flags.charge };
    const result = runPanel(flags.seeds, config, rules, referencePolicies(config));
    if (flags.json) {
      return printJson({
        seeds: flags.seeds,
        config,
        charge: flags.charge,
        streams: result.streams.map(({ seed, hash, hot, trap }) => ({ seed, hash, hot, trap })),
        policies: result.policies.map(({ policy, pooled }) => ({ policy, ...pooled })),
      });
    }
    const rows = result.policies.map(({ policy, pooled }) => [
      policy,
      fixed(pooled.itemsPerStream),
      fixed(pooled.meanNet),
      percent(pooled.score),
      percent(pooled.firstSight),
      percent(pooled.firstSightHazard),
      fixed(pooled.meanLateness),
      fixed(pooled.commitmentsPerSession),
      percent(pooled.zeroCommitIncidence, 0),
    ]);
    const seeds = flags.seeds;
    process.stdout.write(
      [
        `Reference policies on ${seeds.length} streams (seeds ${seeds[0]}..${seeds.at(-1)}) · T=${config.length} B=${config.budget} K=${flags.charge} · magnitude ${config.magnitude} · N disclosed`,
        '',
        table(['policy', 'items/stream', 'net', 'Score', 'first-sight', 'hazard', 'lateness', 'commits/seed', 'zero-commit'], rows),
        '',
        'Score is pooled utility over the hindsight optimum; first-sight is among commitments; hazard is over eligible first occurrences.',
        'Inspect a stream with `npx allocbench stream --seed 2000`; compare policies over many streams with `npx allocbench simulate`.',
      ].join('\n') + '\n',
    );
  });
}
