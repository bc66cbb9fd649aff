import type { Framing } from '../rungs/framing.js';
import { isUrnRung, MAX_OUTPUT_TOKENS, SPLIT_ROLE_RUNGS, type Rung, type SplitRole } from '../rungs/rung.js';
import type { Reskin } from '../rungs/vocabulary.js';
import type { StreamConfig } from '../stream/stream-config.js';
import { FAMILY_NAMES } from '../families/family-names.js';
import type { ScriptSettings } from '../scripts/script-settings.js';
import type { Price } from './price.js';
import { slug } from './slug.js';

/** A model as one agent of a session calls it: its id, its price and its sampling temperature. */
export interface AgentModel {
  readonly model: string;
  readonly price: Price | null;
  readonly temperature: number | null;
}

/**
 * The split agent (R3 only): the session's `model` is the planner, which
 * claims or skips at R1's framing; `builder` plays R3's loop on the problems
 * of the claimed types (core/session/split-protocol.ts).
 */
export interface SplitAgent {
  readonly kind: 'split';
  readonly builder: AgentModel;
}

/** One seed session: (model, rung, seed, B, K, reskin, N disclosure) plus the generator and the token cap. */
export interface SessionSpec {
  /** `provider/model`, e.g. `policy/commit-at-2`; a split agent's planner. */
  readonly model: string;
  /** The arm of a sweep with several (sweep-config.ts) that the session belongs to; absent otherwise. */
  readonly arm?: string;
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
  /** The model's price, when known (hosted models); null for free or unknown. */
  readonly price: Price | null;
  /** Re-samples of a local model's reply that has no tool call (paper F.5). */
  readonly emptyRetries: number;
  /** The longest wait a provider's retry-after is honoured for, in seconds (absent in older runs: 60). */
  readonly maxRetryAfterSeconds?: number;
  /** R3 only: when the session ends and the sandbox's limits. */
  readonly script: ScriptSettings;
  /** R3 only: a split agent; absent for a single agent (`model`). */
  readonly agent?: SplitAgent;
}

/** The model a call goes to: a split agent's builder for the builder's calls, else the session's own model. */
export function agentModel(spec: SessionSpec, role?: SplitRole): AgentModel {
  if (role === 'builder') {
    if (!spec.agent) throw new Error(`${sessionKey(spec)}: a builder's call in a session without a split agent`);
    return spec.agent.builder;
  }
  return { model: spec.model, price: spec.price, temperature: spec.temperature };
}

/** Who plays a session, as tables name it: the model, or a split agent's planner (the model) and builder. */
export const agentName = (model: string, builder: string | null): string =>
  builder === null ? model : `split: planner ${model}, builder ${builder}`;

/** The rung whose framing a call is made at: a split agent's planner is asked as at R1, its builder as at R3. */
export const callRung = (spec: Pick<SessionSpec, 'rung'>, role?: SplitRole): Rung => (role ? SPLIT_ROLE_RUNGS[role] : spec.rung);

/** Models served on this machine or a local server (`gguf/`, `openai-compatible/`), which the paper ran at temperature 0 with required tool calls. */
export function isLocalModel(model: string): boolean {
  return model.startsWith('gguf/') || model.startsWith('openai-compatible/');
}

/**
 * Models whose reasoning counts against the output limit: the GPT-5 family
 * (as in the paper), every `openai-responses/` model (reasoning on), and
 * Gemini models unless thinking is off (`thinking_budget=0`).
 */
function reasonsWithinOutputLimit(model: string): boolean {
  if (model.startsWith('google/')) return !/[?&]thinking_budget=0(&|$)/.test(model);
  return model.startsWith('openai-responses/') || /(^|\/)gpt-5/.test(model);
}

/**
 * Output tokens per call (paper B.4, HARNESS.md): 512 / 1500 / 2500 / 4096 at
 * R0 (and the probe) / R1 / R2 / R3 — a split agent's planner at R1's, its
 * builder at R3's; at least 4,000 for models whose reasoning counts against
 * it (the paper's GPT-5 rule), and 4,000 in economic R2 cells.
 */
export function maxOutputTokens(spec: SessionSpec, role?: SplitRole): number {
  const rung = callRung(spec, role);
  const base = MAX_OUTPUT_TOKENS[rung];
  const economicR2 = rung === 'R2' && (spec.economic || spec.charge > 0);
  return reasonsWithinOutputLimit(agentModel(spec, role).model) || economicR2 ? Math.max(base, 4000) : base;
}

/** Human-readable identity of a session, unique within a sweep. */
export function sessionKey(spec: SessionSpec): string {
  const disclosure = spec.announceN ? 'n-announced' : 'n-hidden';
  return [
    spec.model,
    ...(spec.arm !== undefined ? [spec.arm] : []),
    spec.rung,
    // A split agent's sessions never share a key (nor a folder, nor a workflow id) with its planner's own.
    ...(spec.agent ? ['split', spec.agent.builder.model] : []),
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

/** One conversation of a session: the session's, or a split agent's role's own (prompt caches, KV caches and sampling seeds go by it). */
export const conversationKey = (sessionKey: string, role?: SplitRole) => (role ? `${sessionKey}#${role}` : sessionKey);

/** The session and the split agent's role (if any) a conversation key names. */
export function conversationOf(key: string): { readonly sessionKey: string; readonly role?: SplitRole } {
  const at = key.lastIndexOf('#');
  const role = key.slice(at + 1);
  return at >= 0 && Object.hasOwn(SPLIT_ROLE_RUNGS, role) ? { sessionKey: key.slice(0, at), role: role as SplitRole } : { sessionKey: key };
}

/** What a call is told: the session's framing, or for a split agent's role the framing of the rung that role plays. */
export function framingOf(spec: SessionSpec, role?: SplitRole): Framing {
  if (role) return { ...framingOf({ ...spec, rung: callRung(spec, role) }), role };
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
