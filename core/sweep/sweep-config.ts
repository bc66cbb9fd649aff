import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { isUrnRung, RUNGS, type Rung } from '../rungs/rung.js';
import { RESKINS, type Reskin } from '../rungs/vocabulary.js';
import { streamConfigSchema } from '../stream/stream-config.js';
import { InputError } from '../errors.js';
import { parseAll } from '../validation.js';
import { scriptSettingsSchema } from '../scripts/script-settings.js';
import { priceSchema } from './price.js';
import { parseSeedList, seedListErrors } from './seeds.js';

/**
 * Seeds as a list of integers or a string such as "2000-2023" or
 * "2000,2005-2007", under the CLI's rules (seeds.ts): ranges run forwards,
 * no seed repeats; each broken rule is its own error.
 */
const seeds = z
  .union([z.array(z.number()), z.string()], { error: 'expected a list of seeds or text such as "2000-2023" or "2000,2005"' })
  .transform((value, context) => {
    const list = typeof value === 'string' ? parseSeedList(value) : { seeds: value, errors: seedListErrors(value) };
    for (const message of list.errors) context.addIssue({ code: 'custom', message });
    return [...list.seeds];
  });

const providerLimits = z.strictObject({
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe("calls one worker makes at once to this provider (unset: the window's); the ceiling of the adaptive limit"),
  perSecond: z
    .number()
    .positive()
    .optional()
    .describe(
      "calls started per second to this provider by the whole run: the Temporal server's rate on the provider's queue (modelCalls: provider-queue), or the one worker's on the embedded server",
    ),
  adaptive: z
    .boolean()
    .optional()
    .describe(
      'adapt the calls at once to the provider (unset: true): cut by half on a throttled reply, one more per round of answered calls',
    ),
});

/**
 * Where a session's model calls run: 'in-session', as local activities of the
 * session on the worker that runs it (no task-queue round trip, a fifth of the
 * server's work per turn), or 'provider-queue', as activities on the
 * provider's own task queue, served by whichever workers serve that provider
 * (a rate limit the server enforces across all of them). Reference-policy
 * agents always answer in-session.
 */
export const MODEL_CALL_PLACEMENTS = ['in-session', 'provider-queue'] as const;
export type ModelCallPlacement = (typeof MODEL_CALL_PLACEMENTS)[number];

/** What a replayed call does when the recorded run has no reply to its exact request: fail the session's call, or ask the live model. */
export const REPLAY_MISSES = ['error', 'live'] as const;

/**
 * Model calls answered from another run's recorded replies (`--replay-from`):
 * each call gets the reply (or error) recorded for the same session, turn and
 * attempt, provided the request is the same.
 */
const replaySetting = z.strictObject({
  from: z.string().min(1).describe('the recorded run: a run directory or s3://bucket/prefix'),
  miss: z.enum(REPLAY_MISSES).default('error').describe('a request the recorded run has no reply to: error (the default) or live'),
});
export type ReplaySetting = z.output<typeof replaySetting>;

/**
 * Who plays each session: one model of `models` ('plain'), or at R3 the split
 * agent — a planner that claims or skips at R1's framing and a builder that
 * plays R3's loop on the claimed types (core/session/split-protocol.ts); the
 * same model may play both.
 */
const agentSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('plain') }),
  z.strictObject({
    kind: z.literal('split'),
    planner: z.string().min(1).describe('the model that decides which types to claim, as at R1'),
    builder: z.string().min(1).describe('the model that writes and runs the scripts of the claimed types, as at R3'),
  }),
]);

export type AgentConfig = z.output<typeof agentSchema>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const NAME_RULE = 'use letters, digits, dot, dash and underscore';

/** The grid one arm crosses with the sweep's models and seeds: what a cell of the paper varies. */
const gridFields = {
  rungs: z.array(z.enum(RUNGS)).min(1).describe('framing rungs: R0 (the urn), probe (keep/pass tools), R1, R2, R3'),
  budgets: z.array(z.number().int().min(1).max(255)).min(1).describe('B: commitments allowed per session'),
  charges: z.array(z.number().min(0).max(1_000_000)).min(1).describe('K: the visible one-time charge per commitment'),
  reskins: z
    .array(z.enum(RESKINS as [Reskin, ...Reskin[]]))
    .min(1)
    .describe('urn vocabularies, played at the urn rungs (R0, probe) only'),
  announceN: z.array(z.boolean()).min(1).describe('disclose N (the number of problem types)'),
};

/**
 * One arm of a sweep with several: its own grid, each field the sweep's own
 * where left out. Its sessions are filed under its name
 * (`<model>/<arm>/<rung>/…`), so two arms may differ in what a session key
 * does not show (an economic cell at K = 0 beside a plain one).
 */
const armSchema = z.strictObject({
  name: z.string().regex(NAME, NAME_RULE).max(60).describe('names the arm in session keys and folders'),
  rungs: gridFields.rungs.optional(),
  budgets: gridFields.budgets.optional(),
  charges: gridFields.charges.optional(),
  reskins: gridFields.reskins.optional(),
  announceN: gridFields.announceN.optional(),
  economic: z.boolean().optional().describe('state the charge rule, K = 0 included (unset: when any of its charges is above 0)'),
});

/** An arm with every grid field resolved. */
export interface SweepArm {
  readonly name: string;
  readonly rungs: readonly Rung[];
  readonly budgets: readonly number[];
  readonly charges: readonly number[];
  readonly reskins: readonly Reskin[];
  readonly announceN: readonly boolean[];
  readonly economic?: boolean;
}

/**
 * A sweep: the cross product of models, rungs, reskins (urn rungs only), N
 * disclosure, budgets, charges and seeds, one durable session each — or, with
 * `arms`, the union of one such grid per arm over the same models and seeds.
 * `window`, `modelCalls`, `limits`, `heartbeatSeconds` and `replay` shape how
 * it runs, not what it measures.
 */
const sweepFields = z.strictObject({
  $schema: z.string().optional().describe('the JSON Schema of sweep files, for editors (allocbench schema sweep); ignored'),
  name: z.string().regex(NAME, NAME_RULE).max(120).describe('names the sweep and its default run directory, runs/<name>'),
  /** Required unless a split agent names its models. */
  models: z.array(z.string().min(1)).min(1).optional().describe('model ids (provider/model, policy/<name>); `sweep --model` replaces them'),
  agent: agentSchema.default({ kind: 'plain' }),
  /** Required unless every arm names its rungs; with arms, the rungs any arm plays. */
  rungs: gridFields.rungs.optional(),
  seeds: seeds
    .describe('seeds, a list or text such as "2000-2023" (default: the paper\'s 2000–2023)')
    .default([...Array.from({ length: 24 }, (_, i) => 2000 + i)]),
  budgets: gridFields.budgets.default([3]),
  charges: gridFields.charges.default([0]),
  reskins: gridFields.reskins.default(['ball']),
  announceN: gridFields.announceN.default([false]),
  arms: z
    .array(armSchema)
    .min(1)
    .nullable()
    .default(null)
    .describe("several grids over the same models and seeds, each field the sweep's own where an arm leaves it out"),
  stream: streamConfigSchema.default(streamConfigSchema.parse({})),
  streams: z
    .string()
    .min(1)
    .nullable()
    .default(null)
    .describe(
      "a directory whose stream files replace the generator's: an authors' arm (seed_<S>/stream.json) or a run directory (streams/seed-<S>.json)",
    ),
  tokenCap: z
    .number()
    .int()
    .min(1)
    .nullable()
    .optional()
    .describe('session token cap, input plus output (null: none; unset: 300,000 at R3, none at R0–R2, as the paper)'),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .nullable()
    .optional()
    .describe("sampling temperature (null: the provider's default; unset: 0 for local models, the provider's default for hosted ones)"),
  economic: z.boolean().optional().describe('state the charge rule in every cell, K = 0 included (unset: when any charge is above 0)'),
  strictParse: z.boolean().default(false).describe('read R0 replies strictly: exactly one DECISION line, no fallback'),
  unitCap: z.number().positive().nullable().default(null).describe('cost cap per session in USD (null: none)'),
  runCap: z.number().positive().nullable().default(null).describe('cost cap for the whole run in USD (null: none)'),
  prices: z.record(z.string(), priceSchema).default({}).describe('USD per million tokens, per model id'),
  emptyRetries: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(4)
    .describe(
      "the paper's empty-fence retries (efr N): a local model's turn is asked at most N times in all while its reply has no tool call",
    ),
  maxRetryAfterSeconds: z
    .number()
    .min(0)
    .max(86_400)
    .default(60)
    .describe("the longest wait a provider's retry-after is honoured for, in seconds (longer requests wait this long)"),
  r3: scriptSettingsSchema.default(scriptSettingsSchema.parse({})),
  window: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(8)
    .describe(
      "sessions in flight at once: bounded by the provider's limit, not by Temporal (sessions are top-level workflows, no workflow's children); up to 10,000, every session of a 10,000-session sweep at once (docs/scale-and-clusters.md)",
    ),
  modelCalls: z.enum(MODEL_CALL_PLACEMENTS).default('in-session').describe('where model calls run: in-session or provider-queue'),
  limits: z
    .record(z.string(), providerLimits)
    .default({})
    .describe('per provider (openai, anthropic, …, sandbox): calls at once and per second'),
  heartbeatSeconds: z.number().min(1).max(3600).default(30).describe('how often a running activity reports it is alive, in seconds'),
  replay: replaySetting.nullable().default(null).describe('answer every model call from a recorded run'),
});

type SweepFields = z.output<typeof sweepFields>;

/** Each arm's grid, every field the sweep's own where the arm leaves it out; none without arms. */
function resolveArms(config: Omit<SweepFields, '$schema'>): SweepArm[] | null {
  return (
    config.arms?.map((arm) => ({
      name: arm.name,
      rungs: arm.rungs ?? config.rungs ?? [],
      budgets: arm.budgets ?? config.budgets,
      charges: arm.charges ?? config.charges,
      reskins: arm.reskins ?? config.reskins,
      announceN: arm.announceN ?? config.announceN,
      ...((arm.economic ?? config.economic) !== undefined && { economic: arm.economic ?? config.economic }),
    })) ?? null
  );
}

/** The cells an arm plays (rung, reskin, N, B, K, economic), each as text: two arms may not play the same one. */
function armCells(arm: SweepArm): string[] {
  const economic = arm.economic ?? arm.charges.some((charge) => charge > 0);
  return arm.rungs.flatMap((rung) =>
    (isUrnRung(rung) ? arm.reskins : [null]).flatMap((reskin) =>
      arm.announceN.flatMap((announceN) =>
        arm.budgets.flatMap((budget) =>
          arm.charges.map((charge) =>
            [rung, reskin ?? '', announceN ? 'N disclosed' : 'N hidden', `B${budget}`, `K${charge}`, economic ? 'economic' : '']
              .filter(Boolean)
              .join(' '),
          ),
        ),
      ),
    ),
  );
}

function checkArms(config: Omit<SweepFields, '$schema'>, context: z.RefinementCtx): void {
  if (!config.arms) {
    if (!config.rungs)
      context.addIssue({ code: 'custom', path: ['rungs'], message: 'required but missing (or arms, each with its rungs)' });
    return;
  }
  const names = new Set<string>();
  const played = new Map<string, string>();
  config.arms.forEach((arm, index) => {
    if (names.has(arm.name)) context.addIssue({ code: 'custom', path: ['arms', index, 'name'], message: `${arm.name} names two arms` });
    names.add(arm.name);
    if (!arm.rungs && !config.rungs)
      context.addIssue({ code: 'custom', path: ['arms', index, 'rungs'], message: "required but missing (or the sweep's rungs)" });
  });
  for (const arm of resolveArms(config) ?? []) {
    for (const cell of armCells(arm)) {
      const other = played.get(cell);
      if (other !== undefined && other !== arm.name)
        context.addIssue({ code: 'custom', path: ['arms'], message: `arms ${other} and ${arm.name} both play ${cell}` });
      played.set(cell, arm.name);
    }
  }
}

/** Every rung the sweep plays, in the ladder's order. */
const rungsPlayed = (arms: readonly SweepArm[]): Rung[] => RUNGS.filter((rung) => arms.some((arm) => arm.rungs.includes(rung)));

export const sweepConfigSchema = sweepFields
  .superRefine((config, context) => {
    checkArms(config, context);
    if (config.agent.kind === 'plain') {
      if (!config.models)
        context.addIssue({ code: 'custom', path: ['models'], message: 'required but missing (or agent: {kind: split, planner, builder})' });
      return;
    }
    if (config.models)
      context.addIssue({
        code: 'custom',
        path: ['models'],
        message: 'leave it out: a split agent names its models as agent.planner and agent.builder',
      });
    const rungs = config.arms ? rungsPlayed(resolveArms(config) ?? []) : (config.rungs ?? []);
    if (rungs.some((rung) => rung !== 'R3'))
      context.addIssue({ code: 'custom', path: ['rungs'], message: 'the split agent plays R3 only' });
  })
  .transform((parsed) => {
    // `$schema` is for editors only: not a setting, so not recorded.
    const config = Object.fromEntries(Object.entries(parsed).filter(([key]) => key !== '$schema')) as Omit<SweepFields, '$schema'>;
    const arms = resolveArms(config);
    // With arms, `rungs` lists every rung played (what the sweep's workers must be ready for).
    return { ...config, rungs: arms ? rungsPlayed(arms) : (config.rungs as Rung[]), arms };
  });

export type SweepConfig = z.output<typeof sweepConfigSchema>;

/** The sweep, or every error in it (one line each, naming the field as `subject.path`). */
export function checkSweepConfig(
  raw: unknown,
  subject = 'sweep',
): { value: SweepConfig; errors: [] } | { value?: never; errors: string[] } {
  return parseAll(sweepConfigSchema, raw, subject);
}

/** The sweep; an InputError with one line per error if it has any. */
export function parseSweepConfig(raw: unknown, subject = 'sweep'): SweepConfig {
  const checked = checkSweepConfig(raw, subject);
  if (checked.value === undefined) throw new InputError(checked.errors.join('\n'));
  return checked.value;
}

/** SHA-256 of what the sweep measures; a sweep may only resume under the same hash. */
export function experimentHash(config: SweepConfig): string {
  const {
    models,
    agent,
    rungs,
    seeds: seedList,
    budgets,
    charges,
    reskins,
    announceN,
    stream,
    streams,
    tokenCap,
    temperature,
    economic,
    strictParse,
    emptyRetries,
    r3,
    arms,
  } = config;
  const measured = {
    models,
    // A single agent's sweeps keep the hash they had before split agents existed.
    ...(agent.kind === 'split' && { agent }),
    rungs,
    seeds: seedList,
    budgets,
    charges,
    reskins,
    announceN,
    stream,
    // Where stream files are read from is not what is measured: the run keeps its own copy of each, checked against the source.
    streamsFromFiles: streams !== null,
    tokenCap,
    temperature,
    economic,
    strictParse,
    // The cost caps are limits of an invocation (CostCaps), hashed as none so that runs made before keep their hash.
    unitCap: null,
    runCap: null,
    emptyRetries,
    ...(rungs.includes('R3') && { r3 }),
    // Sweeps of one grid keep the hash they had before arms existed.
    ...(arms && { arms }),
  };
  return bytesToHex(sha256(utf8ToBytes(JSON.stringify(measured))));
}
