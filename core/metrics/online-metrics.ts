/*
 * The online yardstick (issue 24). The paper's Score divides by the hindsight
 * optimum, which no online agent can reach; this measures a session against
 * what policy/optimal — the Bayes-optimal online policy under the stream's own
 * generator (core/policies/optimal.ts), deterministic given the stream — nets
 * on the same stream.
 */

/** A session against policy/optimal on its own stream. */
export interface OnlineMetrics {
  /** policy/optimal's net on the session's stream, at its T, B, K (its utility at K = 0). */
  readonly optimum: number;
  /** optimum - the session's net; negative where the session did better on this stream. */
  readonly regret: number;
}

export function onlineMetrics(net: number, optimum: number): OnlineMetrics {
  return { optimum, regret: optimum - net };
}

/** Pooled over sessions, as the hindsight Score is (pooled-metrics.ts). */
export interface PooledOnlineMetrics {
  readonly sessions: number;
  /** Online Score: Σ net / Σ policy/optimal's net; null unless that sum is positive. */
  readonly score: number | null;
  readonly meanOptimum: number;
  readonly meanRegret: number;
}

export function poolOnlineMetrics(sessions: readonly { readonly net: number; readonly online: OnlineMetrics }[]): PooledOnlineMetrics {
  const n = sessions.length;
  if (n === 0) throw new Error('poolOnlineMetrics: no sessions');
  const net = sessions.reduce((sum, s) => sum + s.net, 0);
  const optimum = sessions.reduce((sum, s) => sum + s.online.optimum, 0);
  return { sessions: n, score: optimum > 0 ? net / optimum : null, meanOptimum: optimum / n, meanRegret: (optimum - net) / n };
}
