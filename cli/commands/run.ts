import { Option, type Command } from 'commander';
import { PANEL_SEEDS, panelSeeds } from '../../core/stream/stream-config.js';
import { MAX_SEED } from '../../core/random/rng.js';
import { isUrnRung, RUNGS, type Rung } from '../../core/rungs/rung.js';
import { RESKINS, type Reskin } from '../../core/rungs/vocabulary.js';
import { InputError } from '../../core/errors.js';
import { DEFAULT_SCRIPT_SETTINGS, SCRIPT_LIMIT_RANGES } from '../../core/scripts/script-settings.js';
import { slug } from '../../core/sweep/slug.js';
import { integerIn, numberIn, seedList } from '../options.js';
import { ENV_DEFAULTS } from '../env-defaults.js';
import { defineSweep } from '../../client/load-sweep.js';
import { addExecutionOptions, type ExecutionFlags } from './sweep-options.js';

interface RunFlags extends ExecutionFlags {
  model?: string;
  agent: 'plain' | 'split';
  planner?: string;
  builder?: string;
  rung: Rung;
  seeds: number[];
  budget: number;
  charge: number;
  reskin?: Reskin;
  announceN?: boolean;
  tokenCap?: number;
  temperature?: number;
  economic?: boolean;
  strictParse?: boolean;
  window: number;
  maxRetryAfter: number;
  magnitude: number;
  streamsFrom?: string;
  r3End: 'budget-exhausted' | 'stream-end';
  scriptTimeoutMs: number;
  scriptMemoryMb: number;
}

export function registerRun(program: Command): void {
  addExecutionOptions(
    program
      .command('run')
      .description('run one model (or, at R3, a split agent) at one rung on a seed panel, each seed a durable Temporal session')
      .addOption(
        new Option('--model <provider/model>', 'e.g. policy/commit-at-2 (reference policies: eager, commit-at-<k>, bayes, optimal)').env(
          ENV_DEFAULTS.model,
        ),
      )
      .addOption(new Option('--rung <rung>', 'framing rung').choices(RUNGS).makeOptionMandatory())
      .addOption(
        new Option(
          '--agent <kind>',
          'plain: one model (--model); split (R3 only): a planner that claims or skips as at R1 and a builder that writes and runs the scripts of the claimed types (--planner, --builder; the same model may be both)',
        )
          .choices(['plain', 'split'])
          .default('plain'),
      )
      .option('--planner <provider/model>', 'with --agent split: the model that decides which types to claim')
      .option('--builder <provider/model>', 'with --agent split: the model that writes and runs the scripts')
      .addOption(
        new Option('--seeds <list>', 'seeds, e.g. 2000-2023 or 2000,2005')
          .argParser(seedList(0, MAX_SEED))
          .default(panelSeeds(), `${PANEL_SEEDS.first}-${PANEL_SEEDS.last}`)
          .env(ENV_DEFAULTS.seeds),
      )
      .option('--budget <B>', 'budget B', integerIn(1, 255), 3)
      .option('--charge <K>', 'visible one-time charge per commitment (economic variant)', numberIn(0, 1_000_000), 0)
      .addOption(new Option('--reskin <name>', 'urn vocabulary for R0 and the probe').choices(RESKINS))
      .option('--announce-n', 'disclose the number of classes N')
      .option('--token-cap <n>', 'session token cap, input plus output (default: 300,000 at R3, none at R0–R2)', integerIn(1, 1e9))
      .option(
        '--temperature <t>',
        "sampling temperature (default: 0 for local models, the provider's default for hosted ones)",
        numberIn(0, 2),
      )
      .option('--economic', 'state the charge rule even at K = 0 (an economic cell; implied by --charge above 0)')
      .option('--strict-parse', 'read R0 replies strictly: exactly one DECISION line, no fallback to a leading or stray KEEP/PASS')
      .addOption(new Option('--window <n>', 'sessions running at once').argParser(integerIn(1, 10_000)).default(8).env(ENV_DEFAULTS.window))
      .option(
        '--max-retry-after <seconds>',
        "the longest a provider's Retry-After is waited before a retry (longer requests wait this long)",
        numberIn(0, 86_400),
        60,
      )
      .option('--magnitude <M>', "instance magnitude (1000 for the paper's hand-solving check)", integerIn(10, 10_000), 100)
      .option(
        '--streams-from <dir>',
        "play the streams of this directory instead of the generator's: an authors' arm (seed_<S>/stream.json) or an import",
      )
      .addOption(
        new Option('--r3-end <when>', 'R3: stop after the last write (budget-exhausted) or play the whole stream (stream-end)')
          .choices(['budget-exhausted', 'stream-end'])
          .default('budget-exhausted'),
      )
      .option(
        '--script-timeout-ms <n>',
        'R3: CPU time limit of one script run',
        integerIn(...SCRIPT_LIMIT_RANGES.timeoutMs),
        DEFAULT_SCRIPT_SETTINGS.timeoutMs,
      )
      .option(
        '--script-memory-mb <n>',
        'R3: heap limit of one script run',
        integerIn(...SCRIPT_LIMIT_RANGES.memoryMb),
        DEFAULT_SCRIPT_SETTINGS.memoryMb,
      ),
  ).action(async (flags: RunFlags, command: Command) => {
    if (flags.reskin && !isUrnRung(flags.rung)) throw new InputError('--reskin: applies only to R0 and probe');
    // A default model from the environment (ALLOCBENCH_MODEL) gives way to a split agent's own.
    const fromEnv = command.getOptionValueSource('model') === 'env';
    const players = playersOf(flags.agent === 'split' && fromEnv ? { ...flags, model: undefined } : flags);
    const reskin = flags.reskin ?? 'ball';
    const disclosure = flags.announceN ? 'n-announced' : 'n-hidden';
    const name = [
      slug(players.name.replaceAll('/', '_')),
      flags.rung,
      ...(isUrnRung(flags.rung) ? [reskin] : []),
      `B${flags.budget}`,
      `K${flags.charge}`,
      disclosure,
    ].join('_');
    const config = defineSweep(
      {
        name: flags.out ? slug(flags.out.split('/').filter(Boolean).at(-1) ?? name) : name,
        ...players.fields,
        rungs: [flags.rung],
        seeds: flags.seeds,
        budgets: [flags.budget],
        charges: [flags.charge],
        reskins: [reskin],
        announceN: [Boolean(flags.announceN)],
        stream: { magnitude: flags.magnitude },
        streams: flags.streamsFrom ?? null,
        ...(flags.tokenCap !== undefined && { tokenCap: flags.tokenCap }),
        ...(flags.temperature !== undefined && { temperature: flags.temperature }),
        ...(flags.economic && { economic: true }),
        strictParse: Boolean(flags.strictParse),
        unitCap: flags.unitCap ?? null,
        runCap: flags.cap ?? null,
        window: flags.window,
        maxRetryAfterSeconds: flags.maxRetryAfter,
        r3: { end: flags.r3End, timeoutMs: flags.scriptTimeoutMs, memoryMb: flags.scriptMemoryMb },
      },
      {
        modelField: () => '--model',
        agentField: (role) => `--${role}`,
        ...(flags.prices !== undefined && { prices: flags.prices }),
      },
    );
    const { executeSweep } = await import('./execute-sweep.js');
    await executeSweep(config, flags);
  });
}

/** Who plays, from the flags: --model, or --agent split with --planner and --builder; anything else is one line. */
function playersOf(flags: RunFlags): { name: string; fields: Record<string, unknown> } {
  if (flags.agent === 'plain') {
    if (flags.planner !== undefined || flags.builder !== undefined) throw new InputError('--planner, --builder: only with --agent split');
    if (flags.model === undefined) throw new InputError('--model: required (or --agent split with --planner and --builder)');
    return { name: flags.model, fields: { models: [flags.model] } };
  }
  if (flags.model !== undefined) throw new InputError('--model: with --agent split, name the models with --planner and --builder');
  if (flags.rung !== 'R3') throw new InputError('--agent split: plays R3 only (--rung R3)');
  const { planner, builder } = flags;
  if (planner === undefined || builder === undefined)
    throw new InputError(`--${planner === undefined ? 'planner' : 'builder'}: required with --agent split`);
  return { name: `${planner}_split_${builder}`, fields: { agent: { kind: 'split', planner, builder } } };
}
