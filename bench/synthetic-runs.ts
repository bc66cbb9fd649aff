import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FAMILY_NAMES } from '../core/families/family.js';
import { sessionMetrics } from '../core/metrics/session-metrics.js';
import type { Policy } from '../core/policies/policy.js';
import { scriptSessionMetrics } from '../core/scripts/script-metrics.js';
import type { ScriptTurn } from '../core/scripts/script-turn.js';
import { runSession } from '../core/session/run-session.js';
import type { SessionRecord } from '../core/session/session-record.js';
import { generateStream } from '../core/stream/generate-stream.js';
import { sessionKey, type SessionSpec } from '../core/sweep/session-spec.js';
import { expandSweep, experimentHash, parseSweepConfig } from '../core/sweep/sweep-config.js';
import { parsePolicyAgent } from '../activities/providers/policy-provider.js';
import { runLayout } from '../activities/run-store/run-layout.js';
import type { SessionSummary } from '../activities/run-store/session-summary.js';

/**
 * R3 as the reference builder plays it, in process: it writes where the
 * policy commits, reruns its (correct) script on the class's later items and
 * declines elsewhere with a raw answer that cannot score.
 */
function builderTurns(record: SessionRecord, spec: SessionSpec): ScriptTurn[] {
  const commits = record.decisions.filter((d) => d.action === 'commit');
  const last = spec.script.end === 'budget-exhausted' && commits.length === spec.budget ? (commits.at(-1)?.t ?? Infinity) : Infinity;
  const seen: number[] = [];
  return record.classes.slice(0, Math.min(last, record.classes.length)).map((classId, index): ScriptTurn => {
    const t = index + 1;
    const occurrence = (seen[classId] = (seen[classId] ?? 0) + 1);
    const script = commits.findIndex((c) => c.classId === classId && c.t <= t);
    const written = commits[script]?.t === t;
    if (script < 0) return { t, classId, occurrence, action: 'answer', credited: false };
    return { t, classId, occurrence, action: written ? 'write' : 'run', scriptId: `s${script + 1}`, credited: true, scriptReturned: true };
  });
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
    const turns = spec.rung === 'R3' ? builderTurns(record, spec) : undefined;
    const scored = turns && scriptSessionMetrics({ classes, rules: record.rules, turns });
    const summary: SessionSummary = {
      sessionKey: sessionKey(spec),
      spec,
      streamHash: stream.hash,
      termination: turns && turns.length < classes.length ? 'budget-exhausted' : 'stream-end',
      mechanicalFailure: false,
      decisions: turns ? [] : record.decisions,
      metrics: scored?.metrics ?? sessionMetrics(record),
      ...(turns && scored && { script: { turns, metrics: scored.script } }),
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
