import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { costOf } from '../../activities/providers/prices.js';
import { estimateSweep } from '../../client/cost-estimate.js';
import { runCliWith } from '../cli/run-cli.js';

const HAIKU = { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 };

function writeSweep(sweep: object): string {
  const path = join(mkdtempSync(join(tmpdir(), 'allocbench-estimate-')), 'sweep.json');
  writeFileSync(path, JSON.stringify(sweep));
  return path;
}

describe('the dry-run cost estimate', () => {
  it('prices the rendered prompts: cached prefixes, typical below worst, free models at zero', async () => {
    const config = parseSweepConfig({
      name: 'estimate',
      models: ['anthropic/claude-haiku-4-5-20251001', 'policy/commit-at-2'],
      rungs: ['R0', 'R2'],
      seeds: [2000, 2001],
      prices: { 'anthropic/claude-haiku-4-5-20251001': HAIKU },
    });
    const cells = await estimateSweep(config);
    expect(cells.map((c) => [c.model, c.rung, c.sessions])).toEqual([
      ['anthropic/claude-haiku-4-5-20251001', 'R0', 2],
      ['anthropic/claude-haiku-4-5-20251001', 'R2', 2],
      ['policy/commit-at-2', 'R0', 2],
      ['policy/commit-at-2', 'R2', 2],
    ]);
    for (const cell of cells) {
      for (const estimate of [cell.typical, cell.worst]) {
        const { inputTokens, cachedInputTokens, cacheWriteTokens } = estimate.usage;
        // Every request re-reads the previous one and writes only what is new.
        expect(cachedInputTokens + (cacheWriteTokens ?? 0)).toBe(inputTokens);
        expect(cachedInputTokens / inputTokens).toBeGreaterThan(0.5);
      }
      expect(cell.worst.usage.inputTokens).toBeGreaterThan(cell.typical.usage.inputTokens);
      expect(cell.worst.usage.outputTokens).toBeGreaterThan(cell.typical.usage.outputTokens);
      if (cell.model.startsWith('anthropic/')) {
        expect(cell.typical.costUsd).toBeCloseTo(costOf(cell.typical.usage, HAIKU), 10);
        expect(cell.worst.costUsd).toBeGreaterThan(cell.typical.costUsd ?? Infinity);
      } else {
        expect([cell.typical.costUsd, cell.worst.costUsd]).toEqual([0, 0]);
      }
    }
  });

  it('plays every R3 item as a turn, stopping after the last write unless the whole stream is played', async () => {
    const r3 = (end: 'budget-exhausted' | 'stream-end') =>
      estimateSweep(parseSweepConfig({ name: 'r3', models: ['policy/commit-at-2'], rungs: ['R1', 'R3'], seeds: [2000], r3: { end } }));
    const [r1, early] = await r3('budget-exhausted');
    const [, whole] = await r3('stream-end');
    // Never committing, every item is a turn at both rungs: 4,096 output tokens each at R3, 1,500 at R1.
    expect(whole!.worst.usage.outputTokens).toBe(60 * 4096);
    expect(r1!.worst.usage.outputTokens).toBe(60 * 1500);
    expect(early!.typical.usage.inputTokens).toBeLessThan(whole!.typical.usage.inputTokens);
  });

  it("prices the new providers' ids from the shipped table, options and all; reasoning models at their raised output limit", () => {
    const { status, stdout, stderr } = runCliWith({}, [
      'sweep',
      '--estimate',
      '--json',
      writeSweep({
        name: 'reasoning',
        models: [
          'google/gemini-2.5-flash',
          'google/gemini-2.5-flash?thinking_budget=0',
          'openai-responses/gpt-5.4-mini?reasoning_effort=high',
        ],
        rungs: ['R1'],
        seeds: [2000],
      }),
    ]);
    expect(status, stderr).toBe(0);
    const cells = (
      JSON.parse(stdout) as { estimate: { model: string; worst: { usage: { outputTokens: number }; costUsd: number | null } }[] }
    ).estimate;
    const cell = (model: string) => cells.find((c) => c.model === model);
    // Thinking counts against Gemini's output limit: 4,000 a call, or the paper's 1,500 with thinking off.
    expect(cell('google/gemini-2.5-flash')?.worst.usage.outputTokens).toBe(60 * 4000);
    expect(cell('google/gemini-2.5-flash?thinking_budget=0')?.worst.usage.outputTokens).toBe(60 * 1500);
    expect(cell('google/gemini-2.5-flash')?.worst.costUsd).toBeGreaterThan(0);
    expect(cell('google/gemini-2.5-flash?thinking_budget=0')?.worst.costUsd).toBeGreaterThan(0);
    // No price is shipped for it: unknown, not free.
    expect(cell('openai-responses/gpt-5.4-mini?reasoning_effort=high')?.worst.costUsd).toBeNull();
  });

  it("estimates a split agent's two conversations, each at its own model's price", async () => {
    const split = (planner: string, builder: string) =>
      estimateSweep(
        parseSweepConfig({
          name: 'split',
          agent: { kind: 'split', planner, builder },
          rungs: ['R3'],
          seeds: [2000],
          r3: { end: 'stream-end' },
          prices: { 'anthropic/claude-haiku-4-5-20251001': HAIKU },
        }),
      );
    const [paidPlanner] = await split('anthropic/claude-haiku-4-5-20251001', 'policy/commit-at-2');
    const [paidBuilder] = await split('policy/commit-at-2', 'anthropic/claude-haiku-4-5-20251001');
    expect(paidPlanner?.model).toBe('split: planner anthropic/claude-haiku-4-5-20251001, builder policy/commit-at-2');
    // The same calls either way; only the paid conversation differs.
    expect(paidPlanner?.typical.usage).toEqual(paidBuilder?.typical.usage);
    expect(paidPlanner?.typical.costUsd).toBeGreaterThan(0);
    expect(paidBuilder?.typical.costUsd).toBeGreaterThan(0);
    expect((paidPlanner?.typical.costUsd ?? 0) + (paidBuilder?.typical.costUsd ?? 0)).toBeCloseTo(
      costOf(paidPlanner?.typical.usage ?? { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }, HAIKU),
      10,
    );
    // Worst case: the planner claiming at once, so its builder works on most of the stream, or never, asked on every item.
    expect(paidBuilder?.worst.usage.outputTokens).toBeGreaterThan(paidBuilder?.typical.usage.outputTokens ?? Infinity);
  });

  it('starts nothing: no key needed, no run directory written', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'allocbench-estimate-')), 'run');
    const { status, stdout } = runCliWith({}, [
      'run',
      '--model',
      'anthropic/claude-haiku-4-5-20251001',
      '--rung',
      'R1',
      '--seeds',
      '2000-2003',
      '--estimate',
      '--out',
      out,
    ]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/anthropic\/claude-haiku-4-5-20251001\s+R1\s+4\s/);
    expect(stdout).toMatch(/\$\d+\.\d\d/);
    expect(existsSync(out)).toBe(false);
  });
});
