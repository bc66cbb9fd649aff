import { describe, expect, it } from 'vitest';
import { maxOutputTokens, sessionDirName, sessionKey, type SessionSpec } from '../../../core/sweep/session-spec.js';
import { slug } from '../../../core/sweep/slug.js';
import { experimentHash, parseSweepConfig } from '../../../core/sweep/sweep-config.js';
import { expandSweep } from '../../../core/sweep/expand-sweep.js';

const minimal = { name: 'demo', models: ['policy/eager'], rungs: ['R0'] };
const splitSweep = {
  name: 'split',
  agent: { kind: 'split', planner: 'anthropic/claude-haiku-4-5-20251001', builder: 'gguf/models/x.gguf' },
  rungs: ['R3'],
  seeds: [2000],
  prices: { 'anthropic/claude-haiku-4-5-20251001': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 } },
};

describe('sweep config', () => {
  it('fills the paper defaults', () => {
    const config = parseSweepConfig(minimal);
    expect(config.seeds).toEqual(Array.from({ length: 24 }, (_, i) => 2000 + i));
    expect(config).toMatchObject({ budgets: [3], charges: [0], reskins: ['ball'], announceN: [false], window: 8, strictParse: false });
    expect(config.stream).toEqual({ length: 60, budget: 3, hotCount: 3, hotMass: 0.85, magnitude: 100 });
  });

  it('resolves per session what the paper set per rung and model: the token cap at R3 only, temperature 0 for local models, the charge rule in economic cells', () => {
    const specs = expandSweep(
      parseSweepConfig({
        ...minimal,
        models: ['policy/eager', 'gguf/models/x.gguf', 'openai-compatible/qwen@http://localhost:8080/v1'],
        rungs: ['R0', 'R3'],
        seeds: [2000],
      }),
    );
    const of = (model: string, rung: string) => specs.find((spec) => spec.model === model && spec.rung === rung);
    expect(of('policy/eager', 'R0')).toMatchObject({ tokenCap: null, temperature: null, economic: false });
    expect(of('policy/eager', 'R3')).toMatchObject({ tokenCap: 300_000 });
    expect(of('gguf/models/x.gguf', 'R0')?.temperature).toBe(0);
    expect(of('openai-compatible/qwen@http://localhost:8080/v1', 'R0')?.temperature).toBe(0);
    const set = expandSweep(parseSweepConfig({ ...minimal, seeds: [2000], tokenCap: 1000, temperature: 0.7 }))[0];
    expect(set).toMatchObject({ tokenCap: 1000, temperature: 0.7 });
    const grid = expandSweep(parseSweepConfig({ ...minimal, seeds: [2000], charges: [0, 10] }));
    expect(grid.map((spec) => [spec.charge, spec.economic])).toEqual([
      [0, true],
      [10, true],
    ]);
    expect(expandSweep(parseSweepConfig({ ...minimal, seeds: [2000], economic: true }))[0]?.economic).toBe(true);
  });

  it('reads seed ranges written as text', () => {
    expect(parseSweepConfig({ ...minimal, seeds: '2000-2002, 2010' }).seeds).toEqual([2000, 2001, 2002, 2010]);
  });

  it.each([
    [{ ...minimal, rungs: ['R9'] }, /^sweep\.rungs\.0: /],
    [{ ...minimal, models: [] }, /^sweep\.models: /],
    [{ ...minimal, name: 'has space' }, /^sweep\.name: use letters/],
    [{ ...minimal, seeds: 'ten' }, /^sweep\.seeds: /],
    [{ ...minimal, budgets: [0] }, /^sweep\.budgets\.0: /],
    [{ ...minimal, stream: { magnitude: 3 } }, /^sweep\.stream\.magnitude: /],
    [{ ...minimal, extra: 1 }, /^sweep: Unrecognized key/],
    [{ name: 'x', rungs: ['R0'] }, /^sweep\.models: required but missing/],
    [{ ...splitSweep, models: ['policy/eager'] }, /^sweep\.models: leave it out: a split agent names its models/],
    [{ ...splitSweep, rungs: ['R1', 'R3'] }, /^sweep\.rungs: the split agent plays R3 only/],
    [{ ...splitSweep, agent: { kind: 'split', planner: 'policy/eager' } }, /^sweep\.agent\.builder: required but missing/],
    [{ ...splitSweep, agent: { kind: 'team' } }, /^sweep\.agent\.kind: /],
  ])('rejects %j naming the field', (raw, message) => {
    expect(() => parseSweepConfig(raw)).toThrow(message);
  });

  it('expands the cross product, reskins only at the urn rungs', () => {
    const config = parseSweepConfig({
      ...minimal,
      models: ['policy/eager', 'policy/commit-at-2'],
      rungs: ['R0', 'R1', 'probe'],
      reskins: ['ball', 'chest'],
      budgets: [1, 3],
      charges: [0, 10],
      seeds: [1, 2, 3],
    });
    const specs = expandSweep(config);
    // per model: R0 and probe x 2 reskins, R1 x 1 -> 5 framings, x 2 budgets x 2 charges x 3 seeds.
    expect(specs).toHaveLength(2 * 5 * 2 * 2 * 3);
    expect(new Set(specs.map(sessionKey)).size).toBe(specs.length);
    expect(new Set(specs.map(sessionDirName)).size).toBe(specs.length);
    expect(specs.filter((s) => s.rung === 'R1').every((s) => s.reskin === null)).toBe(true);
    expect(expandSweep(config)).toEqual(specs);
  });

  it('hashes what the sweep measures, not how it runs', () => {
    const config = parseSweepConfig(minimal);
    const hash = experimentHash(config);
    expect(experimentHash(parseSweepConfig({ ...minimal, window: 32, heartbeatSeconds: 5 }))).toBe(hash);
    expect(experimentHash(parseSweepConfig({ ...minimal, seeds: '2000-2001' }))).not.toBe(hash);
    expect(experimentHash(parseSweepConfig({ ...minimal, stream: { magnitude: 1000 } }))).not.toBe(hash);
  });
});

describe('a sweep of several arms', () => {
  const armed = {
    name: 'paper',
    models: ['policy/eager'],
    seeds: [2000, 2001],
    announceN: [true],
    arms: [
      { name: 'ladder', rungs: ['R0', 'R3'] },
      { name: 'reskins', rungs: ['R0'], reskins: ['chest', 'quiver'] },
      { name: 'economic', rungs: ['R0', 'R2'], budgets: [1, 3], charges: [0, 24], economic: true },
    ],
  };

  it("crosses each arm's grid with the models and seeds, the sweep's fields where an arm leaves them out", () => {
    const specs = expandSweep(parseSweepConfig(armed));
    // ladder 2 rungs + reskins 2 + economic 2 rungs x 2 B x 2 K, each on 2 seeds.
    expect(specs).toHaveLength((2 + 2 + 8) * 2);
    expect(specs.every((spec) => spec.announceN)).toBe(true);
    const r0 = specs.filter((spec) => spec.rung === 'R0' && spec.budget === 3 && spec.charge === 0 && spec.reskin === 'ball');
    // The ladder's R0 and the economic surface's B3 K0 cell: the same grid point, told the charge rule or not, filed apart.
    expect(r0.map((spec) => [spec.arm, spec.economic])).toEqual([
      ['ladder', false],
      ['ladder', false],
      ['economic', true],
      ['economic', true],
    ]);
    expect(new Set(specs.map(sessionKey)).size).toBe(specs.length);
    expect(sessionKey(r0[2] as SessionSpec)).toBe('policy/eager/economic/R0/ball/B3-K0/n-announced/seed-2000');
    expect(specs.filter((spec) => spec.arm === 'reskins').map((spec) => spec.reskin)).toEqual(['chest', 'chest', 'quiver', 'quiver']);
    expect(specs.find((spec) => spec.rung === 'R3')?.tokenCap).toBe(300_000);
  });

  it('files the sessions of a sweep without arms as before arms existed: no arm in their keys', () => {
    const [first] = expandSweep(parseSweepConfig({ ...minimal, seeds: [2000] }));
    expect(first).not.toHaveProperty('arm');
    expect(sessionKey(first as SessionSpec)).toBe('policy/eager/R0/ball/B3-K0/n-hidden/seed-2000');
  });

  it('reads back what it parsed, lists every rung played, and keeps the hash of a sweep without arms', () => {
    const config = parseSweepConfig(armed);
    expect(config.rungs).toEqual(['R0', 'R2', 'R3']);
    expect(parseSweepConfig(JSON.parse(JSON.stringify(config)))).toEqual(config);
    expect(experimentHash(parseSweepConfig(JSON.parse(JSON.stringify(config))))).toBe(experimentHash(config));
    expect(experimentHash(parseSweepConfig({ ...armed, arms: [...armed.arms.slice(0, 2)] }))).not.toBe(experimentHash(config));
    expect(experimentHash(parseSweepConfig({ ...minimal, $schema: '../config/sweep.schema.json' }))).toBe(
      'a6a577a8a6cdc2a1de8a5f9d374d804112dd83b285f5805d8a26e43b4a9404b9',
    );
    expect(parseSweepConfig({ ...minimal, $schema: 'x' })).not.toHaveProperty('$schema');
  });

  it.each([
    [
      {
        ...armed,
        arms: [
          { name: 'a', rungs: ['R0'] },
          { name: 'a', rungs: ['R1'] },
        ],
      },
      /^sweep\.arms\.1\.name: a names two arms$/,
    ],
    [{ ...armed, arms: [{ name: 'a' }] }, /^sweep\.arms\.0\.rungs: required but missing/],
    [
      {
        ...armed,
        arms: [
          { name: 'a', rungs: ['R0'] },
          { name: 'b', rungs: ['R0', 'R1'] },
        ],
      },
      /^sweep\.arms: arms a and b both play R0 ball N disclosed B3 K0$/,
    ],
    [{ ...armed, arms: [{ name: 'a b', rungs: ['R0'] }] }, /^sweep\.arms\.0\.name: use letters/],
    [{ ...armed, arms: [{ name: 'a', rungs: ['R0'], seeds: [1] }] }, /^sweep\.arms\.0: Unrecognized key/],
    [{ name: 'x', models: ['policy/eager'] }, /^sweep\.rungs: required but missing/],
  ])('rejects %j naming the field', (raw, message) => {
    expect(() => parseSweepConfig(raw)).toThrow(message);
  });
});

describe('output limit per call', () => {
  const limit = (model: string, rung: 'R0' | 'R1' | 'R2' | 'R3' = 'R1') =>
    maxOutputTokens(expandSweep(parseSweepConfig({ name: 'limit', models: [model], rungs: [rung], seeds: [2000] }))[0] as SessionSpec);

  it("keeps the paper's per-rung limits, raised to 4,000 where reasoning counts against them", () => {
    expect([limit('anthropic/claude-haiku-4-5-20251001', 'R0'), limit('anthropic/claude-haiku-4-5-20251001')]).toEqual([512, 1500]);
    expect(limit('openai/gpt-5.4-mini?reasoning_effort=none', 'R0')).toBe(4000);
    expect(limit('openai-responses/o4-mini', 'R0')).toBe(4000);
    expect(limit('google/gemini-2.5-flash', 'R0')).toBe(4000);
    expect(limit('google/gemini-3-pro-preview?thinking_level=low')).toBe(4000);
    // Thinking off: the paper's limit.
    expect(limit('google/gemini-2.5-flash?thinking_budget=0')).toBe(1500);
    expect(limit('google/gemini-2.5-flash?thinking_budget=0', 'R3')).toBe(4096);
  });
});

describe('the split agent in a sweep', () => {
  it('files each session under its planner, with the builder, its price and temperature in the agent', () => {
    const [spec] = expandSweep(parseSweepConfig(splitSweep));
    expect(spec).toMatchObject({
      model: 'anthropic/claude-haiku-4-5-20251001',
      rung: 'R3',
      price: { input: 1 },
      temperature: null,
      agent: { kind: 'split', builder: { model: 'gguf/models/x.gguf', price: null, temperature: 0 } },
    });
  });

  it('reads back what it parsed (a manifest is parsed again), and keeps the hashes of single-agent sweeps', () => {
    const config = parseSweepConfig(splitSweep);
    expect(parseSweepConfig(JSON.parse(JSON.stringify(config)))).toEqual(config);
    expect(config.models).toBeUndefined();
    const plain = parseSweepConfig(minimal);
    expect(plain.agent).toEqual({ kind: 'plain' });
    expect(experimentHash(parseSweepConfig({ ...minimal, agent: { kind: 'plain' } }))).toBe(experimentHash(plain));
    // The hash of this sweep before agents existed: a resumed single-agent run keeps its workflow ids.
    expect(experimentHash(plain)).toBe('a6a577a8a6cdc2a1de8a5f9d374d804112dd83b285f5805d8a26e43b4a9404b9');
    const samePlanner = parseSweepConfig({ ...splitSweep, agent: { ...splitSweep.agent, builder: 'policy/eager' } });
    expect(experimentHash(samePlanner)).not.toBe(experimentHash(config));
  });
});

describe('slug', () => {
  it('keeps safe names and disambiguates replaced characters', () => {
    expect(slug('policy__eager__R0')).toBe('policy__eager__R0');
    const a = slug('openai-compatible/qwen@http://localhost:8080');
    const b = slug('openai-compatible/qwen@http://localhost:8081');
    expect(a).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(a).not.toBe(b);
  });
});
