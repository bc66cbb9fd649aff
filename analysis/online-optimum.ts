import { InputError } from '../core/errors.js';
import { FAMILY_NAMES } from '../core/families/family.js';
import { DEFAULT_CUT } from '../core/policies/optimal-dp.js';
import { optimalRealized, recipeOf } from '../core/policies/optimal.js';
import { decodeClasses } from '../core/session/compact-codes.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import type { LoadedSession } from './load/load-runs.js';
import { valuesPerStream, type CacheOptions } from './stream-values-cache.js';

/*
 * policy/optimal's net on each session's stream: the denominator of the online
 * Score (core/metrics/online-metrics.ts). The policy is deterministic given the
 * stream, so its net is computed here, never run as a session. Solving its
 * table takes 30 CPU-s at T = 60, B = 3, K = 0 and minutes at B = 5 (npm run
 * bench:dp), so the nets are kept on disk (analysis/stream-values-cache.ts).
 */

/** Bump when policy/optimal's decisions change, so nets computed before are not read. */
const CACHE_VERSION = 1;

/** What a session's online optimum depends on besides its class sequence. */
type Setting = Pick<SessionSpec, 'budget' | 'charge' | 'stream'>;

function settingName(spec: Setting, horizon: number): string {
  const { hotCount, hotMass, window } = recipeOf(spec.stream);
  return `T${horizon}-B${spec.budget}-K${spec.charge}-N${FAMILY_NAMES.length}-H${hotCount}-m${hotMass}-W${window}-cut${DEFAULT_CUT}`;
}

/** policy/optimal's nets in the sessions' order (null where its table is out of reach), and the settings it could not solve, with why. */
export interface OnlineOptima {
  readonly nets: readonly (number | null)[];
  readonly unsolved: readonly { readonly setting: string; readonly sessions: number; readonly reason: string }[];
}

/**
 * policy/optimal's net on each session's stream (`classes`: one base-36
 * character per item) at the session's B and K, under its stream's generator
 * (the recipe of `spec.stream`; T = the stream's length), in the given order.
 * A setting whose table is out of reach (T = 200 at B = 3: npm run bench:dp)
 * leaves its sessions without one, and says why.
 */
export async function onlineOptima(
  sessions: readonly { readonly spec: Setting; readonly classes: string }[],
  options: CacheOptions,
): Promise<OnlineOptima> {
  const say = options.say ?? (() => {});
  const bySetting = new Map<string, number[]>();
  sessions.forEach((session, index) => {
    const name = settingName(session.spec, session.classes.length);
    bySetting.set(name, [...(bySetting.get(name) ?? []), index]);
  });
  const nets = new Array<number | null>(sessions.length).fill(null);
  const unsolved: { setting: string; sessions: number; reason: string }[] = [];
  for (const [name, indices] of bySetting) {
    const { spec } = sessions[indices[0] as number] as (typeof sessions)[number];
    const rules = { budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length };
    let known: ReadonlyMap<string, number>;
    try {
      known = await valuesPerStream(
        `online-optimum-v${CACHE_VERSION}/${name}`,
        indices.map((i) => (sessions[i] as (typeof sessions)[number]).classes),
        (missing) => {
          say(`online optimum: solving policy/optimal's table for ${name} (${missing.size} new streams; up to minutes, once per setting)`);
          return [...missing].map(
            (classes) => [classes, optimalRealized(decodeClasses(classes), rules, recipeOf(spec.stream)).net] as const,
          );
        },
        { ...options, say: (line) => say(`online optimum: ${line}`) },
      );
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      unsolved.push({ setting: name, sessions: indices.length, reason: error.message });
      say(`online optimum: not computed for ${name}: ${error.message}`);
      continue;
    }
    for (const i of indices) nets[i] = known.get((sessions[i] as (typeof sessions)[number]).classes) as number;
  }
  return { nets, unsolved };
}

/** The loaded sessions with policy/optimal's net on each one's stream where its table is in reach, and those it is not for. */
export async function withOnlineOptima(
  sessions: readonly LoadedSession[],
  options: CacheOptions,
): Promise<{ sessions: LoadedSession[]; unsolved: OnlineOptima['unsolved'] }> {
  const { nets, unsolved } = await onlineOptima(sessions, options);
  return {
    sessions: sessions.map((session, i) => {
      const net = nets[i];
      return net === null || net === undefined ? session : { ...session, onlineOptimum: net };
    }),
    unsolved,
  };
}
