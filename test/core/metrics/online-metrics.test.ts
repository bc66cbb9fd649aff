import { describe, expect, it } from 'vitest';
import { onlineMetrics, poolOnlineMetrics } from '../../../core/metrics/online-metrics.js';

describe('online metrics: sessions against policy/optimal on their own streams', () => {
  it('pool the Score as Σ net over Σ optimum and the regret as a mean per session, a session beating it on its stream included', () => {
    const sessions = [
      { net: 40, online: onlineMetrics(40, 44) },
      { net: 50, online: onlineMetrics(50, 46) },
    ];
    expect(sessions[1]?.online.regret).toBe(-4);
    expect(poolOnlineMetrics(sessions)).toEqual({ sessions: 2, score: 90 / 90, meanOptimum: 45, meanRegret: 0 });
  });

  it('leave the Score undefined where policy/optimal nets nothing (a charge no class can repay), keeping the regret', () => {
    const pooled = poolOnlineMetrics([{ net: -24, online: onlineMetrics(-24, 0) }]);
    expect(pooled.score).toBeNull();
    expect(pooled.meanRegret).toBe(24);
    expect(() => poolOnlineMetrics([])).toThrow(/no sessions/);
  });
});
