import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FAMILY_NAMES } from '../../../core/families/family.js';
import { sessionMetrics } from '../../../core/metrics/session-metrics.js';
import { commitAtK } from '../../../core/policies/commit-at-k.js';
import { runSession } from '../../../core/session/run-session.js';
import { generateStream } from '../../../core/stream/generate-stream.js';
import { sessionKey } from '../../../core/sweep/session-spec.js';
import { expandSweep, experimentHash, parseSweepConfig } from '../../../core/sweep/sweep-config.js';
import { runLayout } from '../../../activities/run-store/run-layout.js';
import type { SessionSummary } from '../../../activities/run-store/session-summary.js';

/**
 * A run directory written the way the harness writes one, for R0–R2 sessions
 * played in process: each model is `policy/commit-at-<k>`, so the fixture's
 * first-sight rates are known (k = 1 commits at first sight, k = 2 never does).
 */
export function writeRunFixture(runDir: string, raw: Record<string, unknown>): ReturnType<typeof expandSweep> {
  const config = parseSweepConfig(raw);
  const specs = expandSweep(config);
  const write = (path: string, value: unknown) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(value));
  };
  write(runLayout.manifest(runDir), { name: config.name, experimentHash: experimentHash(config), config, createdAt: '2026-01-01T00:00:00.000Z', versions: {} });
  for (const spec of specs) {
    const stream = generateStream(spec.seed, spec.stream);
    const classes = stream.items.map((item) => FAMILY_NAMES.indexOf(item.family));
    const k = Number(/commit-at-(\d+)/.exec(spec.model)?.[1] ?? 2);
    const record = runSession(classes, { budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length }, commitAtK(k));
    const summary: SessionSummary = {
      sessionKey: sessionKey(spec),
      spec,
      streamHash: stream.hash,
      termination: 'stream-end',
      mechanicalFailure: false,
      decisions: record.decisions,
      metrics: sessionMetrics(record),
      responseModels: [spec.model],
      modelMismatch: false,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, estimated: true },
      costUsd: 0,
      attempts: { total: record.decisions.length, transportErrors: 0, permanentErrors: 0, retriedTurns: 0 },
      finishedAt: '2026-01-01T00:00:00.000Z',
    };
    write(runLayout.summary(runDir, spec), summary);
    writeFileSync(runLayout.transcript(runDir, spec), '');
  }
  return specs;
}
