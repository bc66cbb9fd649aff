import { FAMILY_NAMES } from '../families/family.js';
import { poolMetrics, type PooledMetrics } from '../metrics/pooled-metrics.js';
import { sessionMetrics, type SessionMetrics } from '../metrics/session-metrics.js';
import { describePolicy, policyFactory, type PolicySpec } from '../policies/registry.js';
import { runSession } from '../session/run-session.js';
import type { SessionRules } from '../session/session-state.js';
import { generateStream } from '../stream/generate-stream.js';
import type { StreamConfig } from '../stream/stream-config.js';
import type { Stream } from '../stream/stream.js';

export interface PanelResult {
  readonly streams: readonly Stream[];
  readonly policies: readonly { readonly policy: string; readonly sessions: readonly SessionMetrics[]; readonly pooled: PooledMetrics }[];
}

/** The reference policies on full seed-panel streams, played in process with N disclosed. */
export function runPanel(
  seeds: readonly number[],
  config: StreamConfig,
  rules: SessionRules,
  policies: readonly PolicySpec[],
): PanelResult {
  const streams = seeds.map((seed) => generateStream(seed, config));
  const classLists = streams.map((stream) => stream.items.map((item) => FAMILY_NAMES.indexOf(item.family)));
  const setting = { ...rules, classCount: FAMILY_NAMES.length };
  return {
    streams,
    policies: policies.map((spec) => {
      const policyFor = policyFactory(spec, rules);
      const sessions = classLists.map((classes) => sessionMetrics(runSession(classes, setting, policyFor(classes))));
      return { policy: describePolicy(spec), sessions, pooled: poolMetrics(sessions) };
    }),
  };
}
