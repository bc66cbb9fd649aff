import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSourceStream } from '../../run-store/stream-source.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, PAPER_RUNS } from '../paper-artifacts.js';
import { serverForThisFile } from '../temporal/harness.js';
import { runCli, runCliWith } from './run-cli.js';

const ARM = 'claim_solver_haiku_n-announced';
/** The runs go through the shared Temporal server (the embedded one has tests of its own). */
const temporal = serverForThisFile();
const runOnServer = (...args: string[]) => runCliWith(temporal.env, args);

describe.skipIf(!HAVE_PAPER_RUNS)(
  `a new model on the paper's own streams (${HAVE_PAPER_RUNS ? `--streams-from ${ARM}` : NO_PAPER_RUNS})`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-streams-from-'));
    const source = join(PAPER_RUNS, ARM);

    it('plays exactly the stored items through Temporal, records their hash, and pairs with the imported arm by seed', async () => {
      const out = join(dir, 'run');
      const run = runOnServer(
        'run',
        '--model',
        'policy/commit-at-2',
        '--rung',
        'R1',
        '--seeds',
        '2000-2001',
        '--announce-n',
        '--streams-from',
        source,
        '--out',
        out,
      );
      expect(run.status, run.stderr).toBe(0);
      for (const seed of [2000, 2001]) {
        const stored = await readSourceStream(source, seed);
        const session = readdirSync(join(out, 'sessions')).find((name) => name.endsWith(`seed-${seed}`)) as string;
        const summary = JSON.parse(readFileSync(join(out, 'sessions', session, 'summary.json'), 'utf8'));
        expect(summary.streamHash).toBe(stored.hash);
        const firstTurn = readFileSync(join(out, 'sessions', session, 'transcript.jsonl'), 'utf8')
          .split('\n')
          .map((line) => (line ? JSON.parse(line) : null))
          .find((record) => record?.type === 'turn');
        expect(firstTurn.user).toContain(stored.items[0]?.text);
      }
      expect(JSON.parse(runCli('stream', '--seed', '2000', '--from', source, '--json').stdout).hash).toBe(
        (await readSourceStream(source, 2000)).hash,
      );

      const imported = join(dir, 'imported');
      expect(runCli('import', source, '--out', imported).status).toBe(0);
      const compared = runCli('compare', out, join(imported, ARM), '--a', 'haiku', '--b', 'policy/commit-at-2');
      expect(compared.status, compared.stderr).toBe(0);
      expect(compared.stdout).toMatch(/\| R1 \| 2 \| /);
      expect(compared.stdout).not.toMatch(/not paired/);
    });

    it("refuses to pair a run on the generator's streams with the paper's arm, and says so", async () => {
      const out = join(dir, 'generator');
      expect(runOnServer('run', '--model', 'policy/eager', '--rung', 'R1', '--seeds', '2000', '--announce-n', '--out', out).status).toBe(0);
      const imported = join(dir, 'imported-2');
      expect(runCli('import', source, '--out', imported).status).toBe(0);
      const compared = runCli('compare', out, join(imported, ARM), '--a', 'haiku', '--b', 'policy/eager');
      expect(compared.stdout).toMatch(/\| R1 \| 0 \| /);
      expect(compared.stdout).toMatch(/R1: seeds 2000 not paired, the two arms played different streams/);
    });

    it('takes `streams:` in a sweep file, relative to the file, and refuses a seed the directory lacks before anything starts', () => {
      const sweep = join(dir, 'paper.yaml');
      writeFileSync(
        sweep,
        `name: paper\nmodels: [policy/commit-at-2]\nrungs: [R1]\nseeds: "2000-2001"\nannounceN: [true]\nstreams: ${relative(dir, source)}\n`,
      );
      const estimate = runCli('sweep', sweep, '--estimate', '--json');
      expect(estimate.status, estimate.stderr).toBe(0);
      expect(JSON.parse(estimate.stdout).estimate[0]).toMatchObject({ model: 'policy/commit-at-2', rung: 'R1', sessions: 2 });
      const out = join(dir, 'missing-seed');
      const refused = runCli('run', '--model', 'policy/eager', '--rung', 'R1', '--seeds', '1999', '--streams-from', source, '--out', out);
      expect(refused.status).toBe(2);
      expect(refused.stderr.trim()).toMatch(/^allocbench: streams: .*claim_solver_haiku_n-announced has no stream for seed 1999/);
      expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    });
  },
);
