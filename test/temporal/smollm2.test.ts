import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { readManifest } from '../../run-store/manifest.js';
import { runLayout } from '../../run-store/run-layout.js';
import { readTranscriptFile } from '../../run-store/fs-run-store.js';
import type { AttemptRecord } from '../../run-store/transcript.js';
import { SMALL_MODEL_FILE, TEST_GROUPS } from '../../infra/test-groups.js';
import { serverForThisFile, summaryOf } from './harness.js';
import { exited, startCli } from './processes.js';

/** Fetched by `npm run fetch-model` (CI does); the test is skipped where it is absent. */
const modelFile = SMALL_MODEL_FILE;

const temporal = serverForThisFile();

describe('a real small LLM end to end', () => {
  it.skipIf(!TEST_GROUPS.smallModel.present)(
    'plays SmolLM2-135M (GGUF, in process) through Temporal at R0 on a seed, recording every real reply',
    async () => {
      const runDir = join(mkdtempSync(join(tmpdir(), 'allocbench-smollm2-')), 'run');
      // One llama.cpp thread: the suite runs other files beside this one on two cores, and llama.cpp's threads spin while a core they wait on is busy.
      const model = `gguf/${relative(process.cwd(), modelFile)}?threads=1`;
      const cli = startCli(
        [
          'run',
          '--model',
          model,
          '--rung',
          'R0',
          '--seeds',
          '2000',
          // The cap counts uncached input plus output, some 80 tokens a turn here: it ends the session after a few turns.
          '--token-cap',
          '600',
          '--out',
          runDir,
          '--json',
        ],
        temporal.env,
      );
      const code = await exited(cli);
      const { config } = await readManifest(openRunStore(runDir));
      for (const spec of expandSweep(config)) {
        const summary = await summaryOf(runDir, spec);
        // A session whose context ran out is a mechanical failure: the run says so with exit status 3.
        expect(code, cli.output()).toBe(summary.mechanicalFailure ? 3 : 0);
        // A 135M model: poor decisions, many unresolved turns, and a context that may run out. All of it is recorded.
        expect(['stream-end', 'provider-error', 'token-cap']).toContain(summary.termination);
        expect(summary.responseModels).toEqual(['SmolLM2-135M-Instruct.Q4_1.gguf']);
        expect(summary.usage.estimated).toBe(false);
        expect(summary.costUsd).toBe(0);
        const transcript = await readTranscriptFile(runLayout.transcript(runDir, spec));
        expect(transcript.turns.length).toBeGreaterThan(1);
        expect(transcript.turns.some((turn) => turn.reply.text.trim().length > 0)).toBe(true);
        const attempts = transcript.records.filter((r): r is AttemptRecord => r.type === 'attempt' && r.outcome === 'ok');
        expect(attempts.every((a) => a.usage.inputTokens > 0 && a.modelMatches === true)).toBe(true);
        // The conversation grows append-only, so from the second turn on most of the prompt is reused.
        expect(attempts.slice(1).every((a) => a.usage.cachedInputTokens > 0)).toBe(true);
        if (summary.termination === 'provider-error') {
          expect(
            transcript.records.some(
              (r) => r.type === 'attempt' && r.outcome === 'permanent-error' && /context too long/.test(r.error ?? ''),
            ),
          ).toBe(true);
        }
      }
    },
    15 * 60_000,
  );
});
