import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSourceStream } from '../../run-store/stream-source.js';
import { optimalRealized } from '../../core/policies/optimal.js';
import { classSequence } from '../../core/stream/stream.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, PAPER_RUNS } from '../paper-artifacts.js';
import { paperReport } from '../paper-import.js';
import { parseCsv } from '../paper-values/paper-values.js';

describe.skipIf(!HAVE_PAPER_RUNS)(
  `the online Score of imported runs (${HAVE_PAPER_RUNS ? 'shared/paper-artifacts' : NO_PAPER_RUNS})`,
  () => {
    // The report of the whole import that the files reading the paper's runs share (test/paper-import.ts).
    let report: string;
    const rows = (id: string) => parseCsv(readFileSync(join(report, 'tables', `${id}.csv`), 'utf8'));

    beforeAll(async () => {
      const shared = await paperReport();
      expect(shared.imported.status, shared.imported.stderr).toBe(0);
      expect(shared.analyzed.status, shared.analyzed.stderr).toBe(0);
      report = shared.report;
    });

    it("measures each imported session against policy/optimal on the authors' stream it was played on", async () => {
      // At B = 1, K = 0 policy/optimal's table solves in seconds, so the test plays it here.
      const cell = 'economic_surface_haiku/R0/B_1/K_0';
      // Of the whole import, only economic_surface_haiku's cell has Haiku's R0 at B = 1, K = 0 (a second arm would make 48 rows).
      const perSeed = rows('per-seed').filter((r) => r.Model === 'haiku' && r.Rung === 'R0' && r.B === '1' && r.K === '0');
      expect(perSeed).toHaveLength(24);
      for (const row of perSeed) {
        const classes = classSequence(await readSourceStream(join(PAPER_RUNS, cell), Number(row.Seed)));
        expect(Number(row['Online optimum'])).toBe(optimalRealized(classes, { budget: 1, charge: 0, classCount: 8 }).net);
        expect(Number(row['Online regret'])).toBe(Number(row['Online optimum']) - Number(row.Net));
      }
    });

    it('gives every imported cell its online regret, and its online Score where policy/optimal nets more than nothing', () => {
      const cells = rows('cells').filter((r) => r.Rung !== 'R3');
      expect(cells.length).toBeGreaterThanOrEqual(10);
      for (const cell of cells) {
        expect(cell['Online regret'], cell.Source).not.toBe('');
        // The Score is defined where policy/optimal nets more than nothing (at B = 1, K = 24 it never builds).
        expect(cell['Online Score'] !== '', cell.Source).toBe(Number(cell['Online optimum']) > 0);
      }
    });

    it("puts Haiku's R0 and R2 online Scores beside its hindsight Scores, each below the other's yardstick allows", () => {
      const haiku = rows('online-score').find((r) => r.Model === 'haiku');
      for (const rung of ['R0', 'R2']) {
        const hindsight = Number(haiku?.[`Score ${rung}`]);
        const online = Number(haiku?.[`Online Score ${rung}`]);
        // policy/optimal never nets more than the hindsight optimum, so the online Score is never the lower of the two.
        expect(online).toBeGreaterThanOrEqual(hindsight);
        expect(Number(haiku?.[`Online regret ${rung}`])).toBeGreaterThan(0);
      }
    });
  },
);
