import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FAMILY_NAMES } from '../core/families/family.js';
import { sessionMetrics } from '../core/metrics/session-metrics.js';
import type { Policy } from '../core/policies/policy.js';
import { loopMetrics, type LoopRecord } from '../core/scripts/loop-metrics.js';
import { runSession } from '../core/session/run-session.js';
import type { SessionRecord } from '../core/session/session-record.js';
import { generateStream } from '../core/stream/generate-stream.js';
import { sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { experimentHash, parseSweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { parsePolicyAgent } from '../activities/providers/policy-provider.js';
import { runLayout } from '../run-store/run-layout.js';
import type { SessionSummary } from '../run-store/session-summary.js';

/**
 * R3 as the reference builder plays it, in process: it writes where the
 * policy commits, runs its (correct) script on the class's later problems and
 * submits the output, and elsewhere submits an answer that cannot score.
 */
function builderRecord(record: SessionRecord, spec: SessionSpec): LoopRecord {
  const commits = record.decisions.filter((d) => d.action === 'commit');
  const last = spec.script.end === 'budget-exhausted' && commits.length === spec.budget ? (commits.at(-1)?.t ?? Infinity) : Infinity;
  const shown = Math.min(last, record.classes.length);
  const problems = record.classes.slice(0, shown).map((classId, index) => {
    const t = index + 1;
    const script = commits.find((c) => c.classId === classId && c.t <= t);
    return { t, name: script ? `type-${script.classId}` : null, written: script?.t === t };
  });
  const scripted = problems.filter((p) => p.name !== null);
  const stopped = shown === last;
  return {
    classes: record.classes,
    budget: spec.budget,
    shown,
    calls: problems.reduce((sum, p) => sum + (p.written ? 3 : p.name ? 2 : 1), 0) - (stopped ? 2 : 0),
    writes: problems.flatMap((p) => (p.written ? [{ t: p.t, name: p.name as string }] : [])),
    runs: scripted
      .filter((p) => !(stopped && p.t === last))
      .map((p) => ({ t: p.t, name: p.name as string, returned: true, correct: true })),
    submissions: problems
      .filter((p) => !(stopped && p.t === last))
      .map((p) => ({ t: p.t, correct: p.name !== null, byHand: p.name === null })),
    writesRefused: 0,
    crossClassRunsRefused: 0,
    runAttempts: scripted.filter((p) => !(stopped && p.t === last)).length,
    malformedCalls: 0,
    unknownCalls: 0,
    forcedAdvances: 0,
  };
}

/**
 * A run directory written the way the harness writes one, with sessions played
 * in process by the reference-policy agents (R3 by the builder): for the
 * report's tests and its benchmark. Transcripts are left empty.
 */
export function writeSyntheticRun(runDir: string, raw: Record<string, unknown>): SessionSpec[] {
  const config = parseSweepConfig(raw);
  const specs = expandSweep(config);
  const write = (path: string, value: unknown) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(value));
  };
  write(runLayout.manifest(runDir), {
    name: config.name,
    experimentHash: experimentHash(config),
    config,
    createdAt: '2026-01-01T00:00:00.000Z',
    versions: {},
  });
  const policies = new Map<string, Policy>();
  for (const spec of specs) {
    const stream = generateStream(spec.seed, spec.stream);
    write(runLayout.stream(runDir, spec.seed), stream);
    const classes = stream.items.map((item) => FAMILY_NAMES.indexOf(item.family));
    const policy = policies.get(spec.model) ?? parsePolicyAgent(spec.model.slice('policy/'.length)).policy;
    policies.set(spec.model, policy);
    const record = runSession(classes, { budget: spec.budget, charge: spec.charge, classCount: FAMILY_NAMES.length }, policy);
    const loop = spec.rung === 'R3' ? builderRecord(record, spec) : undefined;
    const scored = loop && loopMetrics(loop);
    const summary: SessionSummary = {
      sessionKey: sessionKey(spec),
      spec,
      streamHash: stream.hash,
      termination: loop && loop.writes.length === spec.budget && spec.script.end === 'budget-exhausted' ? 'budget-exhausted' : 'stream-end',
      mechanicalFailure: false,
      decisions: scored?.decisions ?? record.decisions,
      metrics: scored?.metrics ?? sessionMetrics(record),
      ...(scored && { script: { metrics: scored.script } }),
      responseModels: [spec.model],
      modelMismatch: false,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, estimated: true },
      costUsd: 0,
      attempts: { total: 0, transportErrors: 0, permanentErrors: 0, retriedTurns: 0 },
      finishedAt: '2026-01-01T00:00:00.000Z',
    };
    write(runLayout.summary(runDir, spec), summary);
    writeFileSync(runLayout.transcript(runDir, spec), '');
  }
  return specs;
}
