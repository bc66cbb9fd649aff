import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, PAPER_RUNS } from '../paper-artifacts.js';
import { paperImport } from '../paper-import.js';
import type { ImportReport } from '../../importer/import-arms.js';

const fresh = (label: string) => mkdtempSync(join(tmpdir(), `allocbench-import-${label}-`));

/** Every file under a directory with its size and modification time: what "nothing changed" means on disk. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[full] = `${statSync(full).size}:${statSync(full).mtimeMs}`;
    }
  };
  walk(dir);
  return files;
}

const importJson = (...args: string[]) => {
  const result = runCli('import', ...args, '--json');
  return { ...result, report: result.stdout ? (JSON.parse(result.stdout) as ImportReport) : undefined };
};

describe.skipIf(!HAVE_PAPER_RUNS)(
  `allocbench import of the paper's runs (${HAVE_PAPER_RUNS ? 'shared/paper-artifacts' : NO_PAPER_RUNS})`,
  () => {
    let out: string;
    let report: ImportReport;

    beforeAll(async () => {
      // The import the files that read the paper's runs share, made once per test run (test/paper-import.ts).
      const { runs, result } = await paperImport();
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      out = runs;
      report = JSON.parse(result.stdout) as ImportReport;
    });

    it('reads every arm there into a run directory of its own, with the settings its name and files state', () => {
      const arms = readdirSync(PAPER_RUNS).filter((name) => name !== 'economic_surface_reference');
      const economicCells = report.arms.filter((arm) => arm.source.startsWith('economic_surface_'));
      expect(report.errors).toEqual([]);
      expect(report.arms.length).toBe(arms.length - 1 + economicCells.length);
      for (const arm of report.arms) {
        expect(existsSync(join(arm.runDir, 'manifest.json'))).toBe(true);
        expect(arm.seeds.length).toBeGreaterThan(0);
        expect(arm.turns).toBeGreaterThan(0);
        const manifest = JSON.parse(readFileSync(join(arm.runDir, 'manifest.json'), 'utf8'));
        expect(manifest.import.source).toBe(arm.source);
        expect(Object.keys(manifest.import.files).every((path: string) => path.startsWith(`${arm.source}/seed_`))).toBe(true);
        expect(manifest.import.settings).toMatchObject({ model: arm.model, rung: arm.rung, budget: arm.budget, charge: arm.charge });
      }
      const cell = report.arms.find((arm) => arm.source === 'economic_surface_haiku/R2/B_1/K_10');
      expect(cell).toMatchObject({ model: 'haiku', rung: 'R2', budget: 1, charge: 10, announceN: true, reskin: null });
      const reskin = report.arms.find((arm) => arm.source.endsWith('_vocab-treasure_chest'));
      expect(reskin).toMatchObject({ rung: 'R0', reskin: 'chest' });
      expect(report.arms.find((arm) => arm.source === 'arm_a1_announce_n-announced')).toMatchObject({
        model: 'haiku',
        rung: 'R3',
        reparse: null,
      });
    });

    it('recomputes every stored per-session summary from the stored decisions and stream, and they agree', () => {
      expect(report.arms.flatMap((arm) => arm.summaryDifferences)).toEqual([]);
    });

    it('reads every stored decision reply again with our parser, to the stored decision on every turn', () => {
      for (const arm of report.arms.filter((a) => a.rung !== 'R3')) {
        const reparse = arm.reparse;
        expect(reparse, arm.source).not.toBeNull();
        if (!reparse) continue;
        expect(reparse.turns, arm.source).toBe(arm.turns);
        expect(reparse.disagreements, arm.source).toEqual([]);
        expect(reparse.agree, arm.source).toBe(reparse.turns);
      }
    });

    it('changes nothing when the same source is imported again', () => {
      // Into a copy: the shared import stays as the other files read it.
      const copy = join(fresh('again'), 'runs');
      cpSync(out, copy, { recursive: true });
      const before = snapshot(copy);
      const again = importJson(PAPER_RUNS, '--out', copy);
      expect(again.status).toBe(0);
      expect(new Set(again.report?.arms.map((arm) => arm.status))).toEqual(new Set(['unchanged']));
      expect(snapshot(copy)).toEqual(before);
    });

    it('takes an arm or an economic cell given directly, under the same source path', () => {
      const single = fresh('single');
      const result = importJson(
        join(PAPER_RUNS, 'economic_surface_haiku', 'R0', 'B_1', 'K_0'),
        join(PAPER_RUNS, 'urn_haiku_n-announced'),
        '--out',
        single,
      );
      expect(result.status).toBe(0);
      expect(result.report?.arms.map((arm) => arm.source)).toEqual(['economic_surface_haiku/R0/B_1/K_0', 'urn_haiku_n-announced']);
    });

    it('gives status and audit on an imported run, like any run directory', () => {
      const runDir = join(out, 'claim_solver_qwen-rl-base-q8_latest_n-announced_efr4');
      const status = runCli('status', runDir, '--json');
      expect(status.status).toBe(0);
      expect(JSON.parse(status.stdout).runs[0]).toMatchObject({ finished: 24, total: 24, failed: 0, inFlight: 0, unreadable: 0 });
      const audit = runCli('audit', runDir, '--json');
      expect(audit.status).toBe(0);
      const audited = JSON.parse(audit.stdout);
      // Empty-fence retries were stored as calls: the audit shows those turns as retried.
      expect(audited.retriedTurns).toBeGreaterThan(0);
      expect(audited.unresolvedTurns).toBe(112);
    });
  },
);

describe.skipIf(!HAVE_PAPER_RUNS)(
  `allocbench import of changed and broken sources (${HAVE_PAPER_RUNS ? 'copies of shared arms' : NO_PAPER_RUNS})`,
  () => {
    /** A writable copy of some arms, under a runs/ folder of its own. */
    function copyArms(...names: string[]): string {
      const root = join(fresh('source'), 'runs');
      for (const name of names) cpSync(join(PAPER_RUNS, name), join(root, name), { recursive: true });
      return root;
    }

    it('refuses a changed source under an existing import with one line, and replaces it with --replace', () => {
      const root = copyArms('claim_solver_haiku_n-announced');
      const out = fresh('changed');
      expect(importJson(root, '--out', out).status).toBe(0);
      const file = join(root, 'claim_solver_haiku_n-announced', 'seed_2000', 'session.json');
      const session = JSON.parse(readFileSync(file, 'utf8'));
      session.collected += 1;
      writeFileSync(file, JSON.stringify(session));
      const refused = runCli('import', root, '--out', out);
      expect(refused.status).toBe(2);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(
        /already holds an import of claim_solver_haiku_n-announced from other files \(1 changed\); pass --replace/,
      );
      const replaced = importJson(root, '--out', out, '--replace');
      expect(replaced.status).toBe(0);
      const arm = replaced.report?.arms[0];
      expect(arm?.status).toBe('replaced');
      // The stored summary no longer matches the stored decisions: the import says so.
      expect(arm?.summaryDifferences).toEqual([{ seed: 2000, field: 'collected', stored: session.collected, ours: session.collected - 1 }]);
      expect(readdirSync(out).filter((name) => name.startsWith('.'))).toEqual([]);
    });

    it('names the file (and line) of a truncated, unreadable or unknown-format input, skips it, keeps every seed and arm that did read and exits 3', () => {
      const root = copyArms(
        'urn_haiku_n-announced',
        'arm_a1_announce_qwen-rl-base-q8_latest_n-announced_class-bound-v1_efr4',
        'claim_solver_haiku_n-announced',
      );
      const r3 = join(root, 'arm_a1_announce_qwen-rl-base-q8_latest_n-announced_class-bound-v1_efr4', 'seed_2003', 'sessions.jsonl');
      const text = readFileSync(r3, 'utf8');
      writeFileSync(r3, text.slice(0, Math.floor(text.length / 2)));
      const urn = join(root, 'urn_haiku_n-announced', 'seed_2005', 'session.json');
      const session = JSON.parse(readFileSync(urn, 'utf8'));
      delete session.transcript;
      writeFileSync(urn, JSON.stringify(session));
      cpSync(join(root, 'claim_solver_haiku_n-announced'), join(root, 'results_of_something_else'), { recursive: true });
      const out = fresh('broken');
      const result = importJson(root, '--out', out);
      expect(result.status).toBe(3);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(3);
      expect(lines.find((line) => line.includes('sessions.jsonl'))).toMatch(
        /^allocbench: import: skipped .*seed_2003\/sessions\.jsonl:1: truncated line .*expected the paper's R3 sessions\.jsonl/,
      );
      expect(lines.find((line) => line.includes('seed_2005'))).toMatch(
        /^allocbench: import: skipped .*seed_2005\/session\.json: transcript: .*(required|expected the paper's R0–R2 session\.json)/,
      );
      expect(lines.find((line) => line.includes('results_of_something_else'))).toMatch(/not an arm of a known format/);
      const arms = Object.fromEntries((result.report?.arms ?? []).map((arm) => [arm.source, arm.seeds]));
      expect(Object.keys(arms).sort()).toEqual([
        'arm_a1_announce_qwen-rl-base-q8_latest_n-announced_class-bound-v1_efr4',
        'claim_solver_haiku_n-announced',
        'urn_haiku_n-announced',
      ]);
      expect(arms['claim_solver_haiku_n-announced']).toHaveLength(24);
      expect(arms['urn_haiku_n-announced']).not.toContain(2005);
      expect(arms['urn_haiku_n-announced']).toHaveLength(23);
      expect(arms['arm_a1_announce_qwen-rl-base-q8_latest_n-announced_class-bound-v1_efr4']).not.toContain(2003);
      expect(readdirSync(out).sort()).toEqual(Object.keys(arms).sort());
    });

    it('refuses a directory without arms, and a missing one, with one line each', () => {
      const empty = fresh('empty');
      const none = runCli('import', empty, '--out', fresh('none'));
      expect(none.status).toBe(2);
      expect(none.stderr).toMatch(/^allocbench: import: no arms \(seed_<S> folders\) under /);
      const missing = runCli('import', join(empty, 'nope'), '--out', fresh('none'));
      expect(missing.status).toBe(2);
      expect(missing.stderr).toMatch(/^allocbench: import: no such directory /);
    });
  },
);
