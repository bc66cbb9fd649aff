import type { Framing } from '../rungs/framing.js';
import { isUrnRung, MAX_OUTPUT_TOKENS, type Rung } from '../rungs/rung.js';
import type { Reskin } from '../rungs/vocabulary.js';
import type { StreamConfig } from '../stream/stream-config.js';
import { FAMILY_NAMES } from '../families/family-names.js';
import type { ScriptSettings } from '../scripts/script-settings.js';
import type { Price } from './price.js';
import { slug } from './slug.js';

/** One seed session: (model, rung, seed, B, K, reskin, N disclosure) plus the generator and the token cap. */
export interface SessionSpec {
  /** `provider/model`, e.g. `policy/commit-at-2`. */
  readonly model: string;
  readonly rung: Rung;
  readonly seed: number;
  /** The session's budget B (the generator keeps its own trap window, `stream.budget`). */
  readonly budget: number;
  readonly charge: number;
  /** Urn vocabulary; null at the problem rungs, which have none. */
  readonly reskin: Reskin | null;
  readonly announceN: boolean;
  readonly stream: StreamConfig;
  /** Where the stream comes from instead of the generator (a directory of stream files), or null for the generator. */
  readonly streams: string | null;
  /** Session token cap (input + output over every attempt); null for none. */
  readonly tokenCap: number | null;
  /** Sampling temperature; null for the provider's default. */
  readonly temperature: number | null;
  /** An economic cell: the charge rule is stated even at K = 0. */
  readonly economic: boolean;
  /** R0 replies read strictly (one DECISION line), not as the paper's harness read them. */
  readonly strictParse: boolean;
  /** Session cost cap in USD (the paper's per-seed "unit cap"); null for none. */
  readonly costCap: number | null;
  /** Cost cap in USD for the whole run, over every session; null for none. */
  readonly runCap: number | null;
  /** The model's price, when known (hosted models); null for free or unknown. */
  readonly price: Price | null;
  /** Re-samples of a local model's reply that has no tool call (paper F.5). */
  readonly emptyRetries: number;
  /** The longest wait a provider's retry-after is honoured for, in seconds (absent in older runs: 60). */
  readonly maxRetryAfterSeconds?: number;
  /** R3 only: when the session ends and the sandbox's limits. */
  readonly script: ScriptSettings;
}

/** Models served on this machine or a local server (`gguf/`, `openai-compatible/`), which the paper ran at temperature 0 with required tool calls. */
export function isLocalModel(model: string): boolean {
  return model.startsWith('gguf/') || model.startsWith('openai-compatible/');
}

/**
 * Models whose reasoning counts against the output limit: the GPT-5 family
 * (as in the paper), every `openai-responses/` model (reasoning on), and
 * Gemini models unless thinking is off (`thinking_budget=0`).
 */
export function reasonsWithinOutputLimit(model: string): boolean {
  if (model.startsWith('google/')) return !/[?&]thinking_budget=0(&|$)/.test(model);
  return model.startsWith('openai-responses/') || /(^|\/)gpt-5/.test(model);
}

/**
 * Output tokens per call (paper B.4, HARNESS.md): 512 / 1500 / 2500 / 4096 at
 * R0 (and the probe) / R1 / R2 / R3; at least 4,000 for models whose
 * reasoning counts against it (the paper's GPT-5 rule), and 4,000 in economic R2 cells.
 */
export function maxOutputTokens(spec: Pick<SessionSpec, 'rung' | 'model' | 'economic' | 'charge'>): number {
  const base = MAX_OUTPUT_TOKENS[spec.rung];
  const economicR2 = spec.rung === 'R2' && (spec.economic || spec.charge > 0);
  return reasonsWithinOutputLimit(spec.model) || economicR2 ? Math.max(base, 4000) : base;
}

/** Human-readable identity of a session, unique within a sweep. */
export function sessionKey(spec: SessionSpec): string {
  const disclosure = spec.announceN ? 'n-announced' : 'n-hidden';
  return [
    spec.model,
    spec.rung,
    ...(spec.reskin ? [spec.reskin] : []),
    `B${spec.budget}-K${spec.charge}`,
    disclosure,
    `seed-${spec.seed}`,
  ].join('/');
}

/** The session's folder under `sessions/` in the run directory. */
export function sessionDirName(spec: SessionSpec): string {
  return sessionDirOfKey(sessionKey(spec));
}

/** The folder of the session with this key (sessionKey). */
export const sessionDirOfKey = (key: string): string => slug(key.replaceAll('/', '__'));

export function framingOf(spec: SessionSpec): Framing {
  return {
    rung: spec.rung,
    horizon: spec.stream.length,
    budget: spec.budget,
    charge: spec.charge,
    economic: spec.economic || spec.charge > 0,
    classCount: FAMILY_NAMES.length,
    announceN: spec.announceN,
    reskin: isUrnRung(spec.rung) ? (spec.reskin ?? 'ball') : 'ball',
    tokenCap: spec.tokenCap,
  };
}
