import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupArms } from '../../analysis/arms.js';
import { bayesComparators } from '../../analysis/bayes-comparator.js';
import { ladders } from '../../analysis/ladders.js';
import { loadRuns } from '../../analysis/load/load-runs.js';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { bayesRealized } from '../../core/policies/bayes.js';
import { decodeClasses } from '../../core/session/compact-codes.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-bayes-comparator-'));

async function laddersOf(runDir: string, raw: Record<string, unknown>) {
  writeSyntheticRun(runDir, { models: ['policy/eager'], seeds: [2000, 2001, 2002, 2003], ...raw });
  return ladders(groupArms((await loadRuns([runDir])).sessions));
}

describe("the competence gate's comparator (policy/bayes on each stream of a ladder's R0 arm)", () => {
  it('is what policy/bayes collects on each seed where N was disclosed, kept in the cache and read back', async () => {
    const list = await laddersOf(join(dir, 'run'), { name: 'gate', rungs: ['R0', 'R1'], announceN: [true, false], stream: { length: 20 } });
    const disclosed = list.find((ladder) => ladder.key.announceN)?.rungs.R0;
    const hidden = list.find((ladder) => !ladder.key.announceN)?.rungs.R0;
    if (!disclosed || !hidden) throw new Error('the run has an R0 arm with N disclosed and one with N hidden');
    const cacheDir = join(dir, 'cache');
    const comparators = await bayesComparators(list, { cacheDir });
    expect([...comparators.keys()]).toEqual([disclosed]);
    const setting = { budget: 3, charge: 0, classCount: FAMILY_NAMES.length };
    expect(comparators.get(disclosed)).toEqual(
      new Map(disclosed.loaded.map((s) => [s.spec.seed, bayesRealized(decodeClasses(s.classes), setting, 1).collected])),
    );
    const [file] = readdirSync(join(cacheDir, 'bayes-collected-v1'));
    expect(file).toBe('T20-B3-K0-N8-alpha1.json');
    const path = join(cacheDir, 'bayes-collected-v1', file as string);
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
    expect(Object.keys(stored).sort()).toEqual([...new Set(disclosed.loaded.map((s) => s.classes))].sort());
    // A planted value is read back as it is: nothing is solved for a stream the cache holds.
    writeFileSync(path, JSON.stringify(Object.fromEntries(Object.keys(stored).map((classes) => [classes, 1234]))));
    expect([...((await bayesComparators(list, { cacheDir })).get(disclosed)?.values() ?? [])]).toEqual([1234, 1234, 1234, 1234]);
  });

  it('is not solved for an arm the gate does not judge, so its stream may be too long for the exact table', async () => {
    // R0 at K = 10 is an economic cell, not a ladder's R0 arm: at T = 100 the exact table is out of reach.
    const list = await laddersOf(join(dir, 'long'), {
      name: 'long',
      rungs: ['R0', 'R1'],
      charges: [10],
      announceN: [true],
      stream: { length: 100 },
    });
    expect(await bayesComparators(list, { cacheDir: join(dir, 'long-cache') })).toEqual(new Map());
    const { sessions } = await loadRuns([join(dir, 'long')]);
    const setting = { budget: 3, charge: 10, classCount: FAMILY_NAMES.length };
    expect(() => bayesRealized(decodeClasses(sessions[0]?.classes ?? ''), setting, 1)).toThrow(/states .*set a cap/);
  });
});
