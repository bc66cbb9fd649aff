import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupArms } from '../../../analysis/arms.js';
import { loadRuns } from '../../../analysis/load/load-runs.js';
import { bayesComparator, withBayesComparator } from '../../../analysis/stats/bayes-comparator.js';
import { writeSyntheticRun } from '../../../bench/synthetic-runs.js';
import { FAMILY_NAMES } from '../../../core/families/family.js';
import { bayesRealized } from '../../../core/policies/bayes.js';
import { decodeClasses } from '../../../core/session/compact-codes.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-bayes-comparator-'));
const runDir = join(dir, 'run');
writeSyntheticRun(runDir, {
  name: 'gate',
  models: ['policy/eager'],
  rungs: ['R0', 'R1'],
  seeds: [2000, 2001, 2002, 2003],
  announceN: [true, false],
  stream: { length: 20 },
});

describe("the competence gate's comparator (policy/bayes on each session's stream)", () => {
  it('is what policy/bayes collects on the stream of each R0 session that disclosed N, kept in the cache and read back', async () => {
    const cacheDir = join(dir, 'cache');
    const { sessions } = await loadRuns([runDir]);
    const measured = await withBayesComparator(sessions, { cacheDir });
    for (const session of measured) {
      if (session.spec.rung !== 'R0' || !session.spec.announceN) {
        expect(session.bayesCollected).toBeUndefined();
        continue;
      }
      const setting = { budget: session.spec.budget, charge: session.spec.charge, classCount: FAMILY_NAMES.length };
      expect(session.bayesCollected).toBe(bayesRealized(decodeClasses(session.classes), setting, 1).collected);
    }
    const [file] = readdirSync(join(cacheDir, 'bayes-collected-v1'));
    expect(file).toMatch(/^T20-B3-K0-N8-alpha1\.json$/);
    const path = join(cacheDir, 'bayes-collected-v1', file as string);
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
    const judged = measured.filter((s) => s.spec.rung === 'R0' && s.spec.announceN);
    expect(Object.keys(stored).sort()).toEqual([...new Set(judged.map((s) => s.classes))].sort());
    // A planted value is read back as it is: nothing is solved for a stream the cache holds, and the gate reads it.
    const planted = Object.fromEntries(Object.keys(stored).map((classes) => [classes, 1234]));
    writeFileSync(path, JSON.stringify(planted));
    const again = await withBayesComparator(sessions, { cacheDir });
    const disclosed = groupArms(again).find((arm) => arm.key.rung === 'R0' && arm.key.announceN);
    expect([...(disclosed ? (bayesComparator(disclosed) ?? new Map()).values() : [])]).toEqual([1234, 1234, 1234, 1234]);
    const hidden = groupArms(again).find((arm) => arm.key.rung === 'R0' && !arm.key.announceN);
    expect(hidden && bayesComparator(hidden)).toBeNull();
  });

  it('is not solved for other rungs, so a stream too long for its table does not stop an analysis without an R0 arm', async () => {
    const longRun = join(dir, 'long');
    writeSyntheticRun(longRun, {
      name: 'long',
      models: ['policy/eager'],
      rungs: ['R1'],
      seeds: [2000],
      announceN: [true],
      stream: { length: 100 },
    });
    const { sessions } = await loadRuns([longRun]);
    const measured = await withBayesComparator(sessions, { cacheDir: join(dir, 'long-cache') });
    expect(measured.map((s) => s.bayesCollected)).toEqual([undefined]);
    // On R0 the exact table at T = 100 is out of reach, and says so.
    const setting = { budget: 3, charge: 0, classCount: FAMILY_NAMES.length };
    expect(() => bayesRealized(decodeClasses(sessions[0]?.classes ?? ''), setting, 1)).toThrow(/states .*set a cap/);
  });
});
