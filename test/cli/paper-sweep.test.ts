import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { projectRoot } from '../../infra/project-root.js';
import { readSourceStream, sourceStreamConfig } from '../../run-store/stream-source.js';
import { freePort } from '../../infra/ports.js';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { writeDecisionSeed } from '../importer/authors-format.js';
import { runCli, runCliWith } from './run-cli.js';

const sweepFile = (name: string) => join(projectRoot(), 'sweeps', name);
const rawSweep = (name: string) => parseYaml(readFileSync(sweepFile(name), 'utf8')) as Record<string, unknown>;
const PANEL = Array.from({ length: 24 }, (_, i) => 2000 + i);

describe("the paper's protocol as sweep files", () => {
  it('sweeps/paper.yaml: every arm the paper ran for a frontier model, on its 24 streams with N disclosed', async () => {
    const config = parseSweepConfig(rawSweep('paper.yaml'));
    const specs = expandSweep(config);
    expect(config.seeds).toEqual(PANEL);
    const cells = new Set(
      specs.map((s) => `${s.arm} ${s.rung} ${s.reskin ?? '-'} B${s.budget} K${s.charge}${s.economic ? ' economic' : ''}`),
    );
    // The ladder (5 rungs), R0 in three reskins, and R0 and R2 at B in {1, 3, 5} x K in {0, 10, 20, 24}, each told the charge rule.
    expect(cells.size).toBe(5 + 3 + 2 * 3 * 4);
    for (const cell of ['ladder R0 ball B3 K0', 'ladder probe ball B3 K0', 'ladder R3 - B3 K0', 'reskins R0 quiver B3 K0'])
      expect(cells).toContain(cell);
    expect(cells).toContain('economic R2 - B3 K0 economic');
    expect(cells).toContain('economic R0 ball B5 K24 economic');
    expect(specs).toHaveLength(cells.size * 24);
    expect(specs.every((s) => s.announceN && s.stream.magnitude === 100)).toBe(true);
    // The paper's settings per rung: the token cap at R3 only, R3 ending at the last write.
    expect(new Set(specs.map((s) => `${s.rung}:${s.tokenCap}`))).toEqual(
      new Set(['R0:null', 'probe:null', 'R1:null', 'R2:null', 'R3:300000']),
    );
    expect(specs.find((s) => s.rung === 'R3')?.script.end).toBe('budget-exhausted');
    // The streams it names are the paper's, shipped with the repository, one per seed.
    expect(config.streams).toBe('paper-streams');
    expect(await sourceStreamConfig(join(projectRoot(), 'sweeps', 'paper-streams'), config.seeds)).toMatchObject({
      length: 60,
      magnitude: 100,
    });
  });

  it('sweeps/paper-ladder.yaml: R0 to R3 alone, on the same streams', () => {
    const ladder = parseSweepConfig(rawSweep('paper-ladder.yaml'));
    expect(ladder).toMatchObject({
      rungs: ['R0', 'R1', 'R2', 'R3'],
      seeds: PANEL,
      announceN: [true],
      streams: 'paper-streams',
      arms: null,
    });
    expect(expandSweep(ladder)).toHaveLength(4 * 24);
  });

  it('--model replaces the sweep\u2019s models and names the run after them; --estimate prices every arm and starts nothing', () => {
    const estimate = runCli(
      'sweep',
      sweepFile('paper.yaml'),
      '--model',
      'policy/eager',
      '--model',
      'anthropic/claude-haiku-4-5-20251001',
      '--estimate',
      '--json',
    );
    expect(estimate.status, estimate.stderr).toBe(0);
    const cells = (
      JSON.parse(estimate.stdout) as { estimate: { model: string; rung: string; sessions: number; typical: { costUsd: number | null } }[] }
    ).estimate;
    expect(new Set(cells.map((c) => c.model))).toEqual(new Set(['policy/eager', 'anthropic/claude-haiku-4-5-20251001']));
    const haiku = cells.filter((c) => c.model.startsWith('anthropic/'));
    expect(haiku.reduce((sum, c) => sum + c.sessions, 0)).toBe(768);
    expect(haiku.every((c) => (c.typical.costUsd ?? 0) > 0)).toBe(true);
    // --cap sets the sweep's cost cap: a hosted model the price table lacks is then refused before anything starts.
    const capped = runCliWith({ OPENAI_API_KEY: 'sk-not-used-0000' }, [
      'sweep',
      sweepFile('paper-ladder.yaml'),
      '--model',
      'openai/gpt-4o',
      '--cap',
      '5',
      '--out',
      join(mkdtempSync(join(tmpdir(), 'allocbench-capped-')), 'run'),
    ]);
    expect(capped.status).toBe(2);
    expect(capped.stderr).toMatch(/^allocbench: openai\/gpt-4o: a cost cap is set but the price table has no entry for this model/m);
    const bad = runCli('sweep', sweepFile('paper-ladder.yaml'), '--model', 'nosuch/model', '--estimate');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^allocbench: --model nosuch\/model: /);
  });
});

describe('a sweep of arms through Temporal', () => {
  it("plays each arm's cells, the ladder's plain K = 0 cell beside the economic one, on the paper's streams", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-arms-run-'));
    const file = join(dir, 'arms.yaml');
    // paper.yaml's shape, cut to one seed and two arms; its streams are the shipped paper streams.
    writeFileSync(
      file,
      JSON.stringify({
        name: 'arms',
        models: ['policy/commit-at-2'],
        streams: join(projectRoot(), 'sweeps', 'paper-streams'),
        seeds: [2000],
        announceN: [true],
        arms: [
          { name: 'ladder', rungs: ['R0', 'R1'] },
          { name: 'economic', rungs: ['R0'], charges: [0, 24], economic: true },
        ],
      }),
    );
    const out = join(dir, 'run');
    const run = runCli('sweep', file, '--out', out, '--temporal-port', String(await freePort()), '--json');
    expect(run.status, run.stderr).toBe(0);
    const sessions = readdirSync(join(out, 'sessions')).sort();
    expect(sessions).toEqual([
      'policy__commit-at-2__economic__R0__ball__B3-K0__n-announced__seed-2000',
      'policy__commit-at-2__economic__R0__ball__B3-K24__n-announced__seed-2000',
      'policy__commit-at-2__ladder__R0__ball__B3-K0__n-announced__seed-2000',
      'policy__commit-at-2__ladder__R1__B3-K0__n-announced__seed-2000',
    ]);
    const summary = (session: string) => JSON.parse(readFileSync(join(out, 'sessions', session, 'summary.json'), 'utf8'));
    const [economicK0, , ladderR0] = sessions.map(summary);
    expect([ladderR0.spec.economic, economicK0.spec.economic]).toEqual([false, true]);
    expect(ladderR0.streamHash).toBe((await readSourceStream(join(projectRoot(), 'sweeps', 'paper-streams'), 2000)).hash);
    // The charge rule is stated to the economic cell alone, K = 0 included.
    const system = (session: string) =>
      (JSON.parse(readFileSync(join(out, 'sessions', session, 'transcript.jsonl'), 'utf8').split('\n')[0] ?? '{}') as { system: string })
        .system;
    const systems = sessions.map(system);
    expect(systems[0]).toMatch(/costs nothing/);
    expect(systems[2]).not.toMatch(/costs nothing/);
    expect(systems[0]?.replace(/\d+ points?/g, 'K')).toBe(systems[1]?.replace(/\d+ points?/g, 'K'));
  });
});

/*
 * A new model's run of the paper's protocol analyzed beside the authors'
 * imported arms (written here in their formats): the model stands in every
 * per-model table beside the imported one. A smaller variant of paper.yaml —
 * four seeds, the economic arm at B = 3 and K in {0, 24} — keeps the online
 * optimum's tables to seconds; the arms and settings are the file's.
 */
describe("a run of sweeps/paper.yaml beside the paper's imported models", () => {
  const dir = mkdtempSync(join(tmpdir(), 'allocbench-paper-sweep-'));
  const seeds = [2000, 2001, 2002, 2003];
  let analysis: { tables: { id: string; rows: Record<string, unknown>[] }[]; figures: string[] };

  beforeAll(() => {
    const raw = rawSweep('paper.yaml');
    const arms = (raw.arms as Record<string, unknown>[]).map((arm) =>
      arm.name === 'economic' ? { ...arm, budgets: [3], charges: [0, 24] } : arm,
    );
    writeSyntheticRun(join(dir, 'ours'), { ...raw, $schema: undefined, models: ['policy/commit-at-2'], seeds, streams: null, arms });
    const runs = join(dir, 'AlloBench', 'runs');
    const keep = { how: 'tag', commit: true, reply: 'DECISION: KEEP' };
    const claim = { how: 'tool', commit: true, reply: '', toolCalls: [{ name: 'claim_solver', arguments: '{}' }] };
    for (const seed of seeds) {
      writeDecisionSeed(join(runs, 'urn_tiny-model_n-announced'), seed, 'R0', [keep]);
      writeDecisionSeed(join(runs, 'claim_solver_tiny-model_n-announced'), seed, 'R1', [claim]);
      for (const K of [0, 24])
        writeDecisionSeed(join(runs, 'economic_surface_tiny-model', 'R0', 'B_3', `K_${K}`), seed, 'R0', [keep], {
          K,
          config: { announce_n: true, B: 3, K },
        });
    }
    const imported = runCli('import', runs, '--out', join(dir, 'paper'));
    expect(imported.status, imported.stderr).toBe(0);
    const analyzed = runCli('analyze', join(dir, 'ours'), join(dir, 'paper'), '--out', join(dir, 'report'), '--json');
    expect(analyzed.status, analyzed.stderr).toBe(0);
    analysis = JSON.parse(analyzed.stdout);
  });

  const table = (id: string) => {
    const found = analysis.tables.find((t) => t.id === id);
    if (!found) throw new Error(`no table ${id} (tables: ${analysis.tables.map((t) => t.id).join(', ')})`);
    return found;
  };

  it.each(['framing-ladder', 'paired-ladder-differences', 'zero-commit', 'score', 'online-score', 'decision-rules'])(
    '%s has a row for the new model and one for the imported model',
    (id) => {
      const models = table(id).rows.map((row) => String(row.Model));
      expect(models.some((model) => model.startsWith('policy/commit-at-2'))).toBe(true);
      expect(models.some((model) => model.startsWith('tiny-model'))).toBe(true);
    },
  );

  it('cells names each arm of the sweep, and the economic surface holds both models', () => {
    const sources = new Set(table('cells').rows.map((row) => String(row.Source)));
    expect(sources).toEqual(
      new Set([
        'paper · ladder',
        'paper · reskins',
        'paper · economic',
        'urn_tiny-model_n-announced',
        'claim_solver_tiny-model_n-announced',
        'economic_surface_tiny-model/R0/B_3/K_0',
        'economic_surface_tiny-model/R0/B_3/K_24',
      ]),
    );
    const surface = table('economic-surface').rows.map((row) => String(row.Arm));
    expect(surface.some((arm) => arm.startsWith('policy/commit-at-2'))).toBe(true);
    expect(surface.some((arm) => arm.startsWith('tiny-model'))).toBe(true);
    expect(analysis.figures).toEqual(expect.arrayContaining(['ladder', 'r0-vs-r3', 'score-r0-vs-r2', 'economic-hazard']));
  });
});
