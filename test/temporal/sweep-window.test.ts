import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionKey } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { decisionsOf, inProcessDecisions, ownServerForThisFile, summaryOf, sweepOn } from './harness.js';

/*
 * A sweep's window is bounded by the provider, not by Temporal: a workflow may
 * have at most `limit.numPendingChildExecutions.error` children in flight
 * (2,000 by default, here 3), and sessions are not the sweep's children, so a
 * window above that limit runs every session.
 */

const PENDING_CHILDREN_LIMIT = 3;
const temporal = ownServerForThisFile({ 'limit.numPendingChildExecutions.error': PENDING_CHILDREN_LIMIT });

describe('a window above the server limit on pending children', () => {
  it('runs every session, each as the core does in process', async () => {
    const config = parseSweepConfig({
      name: 'wide',
      models: ['policy/commit-at-2?delay=20'],
      rungs: ['R0'],
      seeds: '2000-2007',
      stream: { length: 6 },
      window: 8,
    });
    expect(config.window).toBeGreaterThan(PENDING_CHILDREN_LIMIT);
    const runDir = join(temporal.dir, 'wide');
    const progress = await sweepOn(temporal.server, config, runDir);
    expect(progress).toMatchObject({ total: 8, finished: 8, failed: 0 });
    for (const spec of expandSweep(config)) {
      expect(decisionsOf(await summaryOf(runDir, spec)), sessionKey(spec)).toEqual(inProcessDecisions(spec));
    }
  });
});
