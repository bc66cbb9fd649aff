import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { parseObjectStoreLocation } from '../../run-store/run-location.js';
import { runLayout, runParts } from '../../run-store/run-layout.js';
import type { LoopStepRecord, TranscriptRecord, TurnRecord } from '../../run-store/transcript.js';
import { s3ServerForThisFile } from '../run-store/s3-server.js';
import { HAVE_PAPER_RUNS, PAPER_RUNS } from '../paper-artifacts.js';
import { serverForThisFile, summaryOf, sweepOn } from '../temporal/harness.js';
import { runCli, runCliWith } from './run-cli.js';

/*
 * `allocbench rescore` on runs made through the real Temporal server (on disk
 * and in a bucket on a real S3 server) and on imported arms: a run read again
 * unchanged reports nothing; a stored reply that reads otherwise now (the
 * transcript edited, as a changed reader would see it) is reported with the
 * turn and every metric that moved, its summary rewritten and the old one
 * kept; an unreadable summary is built again from the transcript; a reading
 * that changes what a turn did is one line, exit 3, and every other session
 * is still rescored.
 */

const temporal = serverForThisFile();
const s3 = s3ServerForThisFile();

const sweep = (name: string, rungs: string[]) =>
  parseSweepConfig({ name, models: ['policy/commit-at-2'], rungs, seeds: [2000, 2001], announceN: [true] });

/** Rewrites a session's transcript file record by record. */
function editTranscript(runDir: string, spec: SessionSpec, edit: (record: TranscriptRecord) => TranscriptRecord): void {
  const path = runLayout.transcript(runDir, spec);
  const records = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => edit(JSON.parse(line) as TranscriptRecord));
  writeFileSync(path, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
}

const turnsOf = (runDir: string, spec: SessionSpec) =>
  readFileSync(runLayout.transcript(runDir, spec), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TranscriptRecord)
    .filter((record): record is TurnRecord => record.type === 'turn');

const previousSummaries = (runDir: string, spec: SessionSpec) =>
  readdirSync(runLayout.session(runDir, spec)).filter((name) => name.startsWith('summary.prev-'));

describe('allocbench rescore', () => {
  it('reports nothing for a run read as it was scored, and rewrites what a changed reading moves, keeping the old summary', async () => {
    const config = sweep('rescored', ['R0', 'R1', 'R3']);
    const runDir = join(temporal.dir, 'rescored');
    expect(await sweepOn(temporal.server, config, runDir)).toMatchObject({ finished: 6, failed: 0 });
    const specs = expandSweep(config);
    const [r0, r0b, r1, r1b, r3, r3b] = specs as [SessionSpec, SessionSpec, SessionSpec, SessionSpec, SessionSpec, SessionSpec];

    const unchanged = runCli('rescore', runDir);
    expect(unchanged.status, unchanged.stderr).toBe(0);
    expect(unchanged.stdout).toBe(`${runDir}: 6 sessions: 0 changed, 6 unchanged, 0 not finished, 0 could not be rescored\n`);
    for (const spec of specs) expect(previousSummaries(runDir, spec)).toEqual([]);

    // R0: a pass's reply loses its DECISION line, as a stricter reader would see it: unresolved, the same action.
    const pass = turnsOf(runDir, r0).find((turn) => turn.decision.action === 'pass' && turn.t > 1) as TurnRecord;
    editTranscript(runDir, r0, (record) =>
      record.type === 'turn' && record.t === pass.t ? { ...record, reply: { text: 'I cannot tell.', toolCalls: [] } } : record,
    );
    // R1: a first-sight pass of a class the session later claimed, read as a claim: the turns after it no longer follow.
    const turns = turnsOf(runDir, r1);
    const claimed = new Set(turns.filter((turn) => turn.decision.action === 'commit').map((turn) => turn.decision.classId));
    const early = turns.find((turn) => turn.decision.action === 'pass' && claimed.has(turn.decision.classId)) as TurnRecord;
    editTranscript(runDir, r1, (record) =>
      record.type === 'turn' && record.t === early.t
        ? { ...record, reply: { text: '', toolCalls: [{ id: 'c', name: 'claim_solver', arguments: '{}' }] } }
        : record,
    );
    // R3: a correct answer's submitted value changed: the same calls, one answer fewer.
    let editedCall = 0;
    editTranscript(runDir, r3, (record) => {
      if (record.type !== 'loop-step' || editedCall > 0 || !record.submitted?.correct) return record;
      editedCall = record.call;
      const toolCalls = record.reply.toolCalls.map((call) =>
        call.name === 'submit_answer' ? { ...call, arguments: '{"value": "7"}' } : call,
      );
      return { ...record, reply: { ...record.reply, toolCalls } } satisfies LoopStepRecord;
    });
    // Another session's summary damaged.
    const damaged = runLayout.summary(runDir, r3b);
    const intact = readFileSync(damaged, 'utf8');
    writeFileSync(damaged, '{"sessionKey": ');

    const [before0, before3, before1] = [await summaryOf(runDir, r0), await summaryOf(runDir, r3), await summaryOf(runDir, r1)];
    const dry = runCli('rescore', runDir, '--dry-run');
    expect(dry.status).toBe(3);
    expect(dry.stdout).toContain(
      `${runDir}: 6 sessions: 2 would change (nothing written: --dry-run), 2 unchanged, 1 unreadable summaries would be built again from their transcripts,`,
    );
    for (const spec of specs) expect(previousSummaries(runDir, spec)).toEqual([]);
    // While another command holds the run, nothing is rewritten.
    const lock = await openRunStore(runDir).lock(() => undefined);
    const refused = runCli('rescore', runDir);
    await lock.release();
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^allocbench: ${escape(runDir)} is in use by pid ${process.pid}`));
    expect(await summaryOf(runDir, r0)).toEqual(before0);

    const result = runCli('rescore', runDir);
    expect(result.status, result.stderr).toBe(3);
    const changed = result.stdout.split('\n').filter((line) => line.startsWith('changed '));
    expect(changed).toHaveLength(2);
    expect(changed[0]).toBe(
      `changed ${sessionKey(r0)}: turn ${pass.t} pass (${pass.decision.how}) → pass, unresolved (no-decision); unresolved 0 → 1`,
    );
    expect(changed[1]).toMatch(
      new RegExp(`^changed ${escape(sessionKey(r3))}: call ${editedCall} submitted \\d+ \\(correct\\) → 7 \\(wrong\\);`),
    );
    expect(changed[1]).toContain(
      `script.answeredCorrectly ${before3.script?.metrics.answeredCorrectly} → ${(before3.script?.metrics.answeredCorrectly ?? 0) - 1}`,
    );
    expect(result.stdout).toContain(`${runDir}: 6 sessions: 2 changed (summaries rewritten`);
    expect(result.stdout).toContain(
      '2 unchanged, 1 unreadable summaries built again from their transcripts (each unreadable one kept beside it as summary.prev-<N>.json), 0 not finished, 1 could not be rescored',
    );
    const errors = result.stderr.split('\n').filter(Boolean);
    expect(errors).toHaveLength(1);
    // The damaged summary is built again from the transcript as the session wrote it; the damaged one kept beside it.
    expect(await summaryOf(runDir, r3b)).toEqual(JSON.parse(intact));
    expect(previousSummaries(runDir, r3b)).toEqual(['summary.prev-1.json']);
    expect(readFileSync(join(runLayout.session(runDir, r3b), 'summary.prev-1.json'), 'utf8')).toBe('{"sessionKey": ');
    expect(errors.find((line) => line.includes(sessionKey(r1)))).toMatch(
      new RegExp(`turn ${early.t} now reads commit where the session played pass, so the turns after it were asked in a state`),
    );

    // Rewritten, the old one kept whole beside it; the diverged session keeps its summary.
    const after0 = await summaryOf(runDir, r0);
    expect(after0.metrics.unresolved).toBe(before0.metrics.unresolved + 1);
    expect(after0.decisions.find((d) => d.t === pass.t)).toMatchObject({ action: 'pass', resolved: false, failure: 'no-decision' });
    expect(after0).toMatchObject({ finishedAt: before0.finishedAt, usage: before0.usage, termination: before0.termination });
    expect(after0.rescoredAt).toBeDefined();
    expect(previousSummaries(runDir, r0)).toEqual(['summary.prev-1.json']);
    expect(JSON.parse(readFileSync(join(runLayout.session(runDir, r0), 'summary.prev-1.json'), 'utf8'))).toEqual(before0);
    expect((await summaryOf(runDir, r3)).script?.metrics.answeredCorrectly).toBe((before3.script?.metrics.answeredCorrectly ?? 0) - 1);
    expect(await summaryOf(runDir, r1)).toEqual(before1);
    expect(previousSummaries(runDir, r1)).toEqual([]);
    for (const spec of [r0b, r1b]) expect(previousSummaries(runDir, spec)).toEqual([]);

    // Read again: nothing more changes, and nothing more is kept.
    const again = runCli('rescore', runDir, '--json');
    expect(again.status).toBe(3); // the diverged R1 session still cannot be rescored
    const report = JSON.parse(again.stdout) as { runs: { changed: number; unchanged: number; failed: number }[] };
    expect(report.runs[0]).toMatchObject({ changed: 0, failed: 1 });
    expect(previousSummaries(runDir, r0)).toEqual(['summary.prev-1.json']);
  });

  it('rescores a run in a bucket, keeping the old summary there', async () => {
    const config = sweep('rescored-s3', ['R0']);
    const location = `${await s3.server.bucket('rescore')}/team/run`;
    expect(await sweepOn(temporal.server, config, location)).toMatchObject({ finished: 2, failed: 0 });
    const [spec] = expandSweep(config) as [SessionSpec];
    const store = openRunStore(location);
    const before = await summaryOf(location, spec);
    // Every record is an object of its own: the one of a later pass turn loses its DECISION line.
    const { bucket, prefix } = parseObjectStoreLocation(location);
    const client = new S3Client({ endpoint: s3.server.env.AWS_ENDPOINT_URL, forcePathStyle: true, region: s3.server.env.AWS_REGION });
    const records = (await store.readTranscriptRecords(spec)).map((record, index) => ({ record, index: index + 1 }));
    const target = records.find(({ record }) => record.type === 'turn' && record.decision.action === 'pass' && record.t > 1);
    if (target?.record.type !== 'turn') throw new Error('no pass turn');
    const key = `${prefix}/${runParts.transcriptRecord(spec, target.index)}`;
    const stored = JSON.parse(await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString());
    expect(stored).toMatchObject({ type: 'turn', t: target.record.t });
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: JSON.stringify({ ...stored, reply: { text: '…', toolCalls: [] } }) }),
    );

    const result = runCliWith(s3.server.env, ['rescore', location]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`changed ${sessionKey(spec)}: turn ${target.record.t} pass`);
    expect(result.stdout).toContain(`${location}: 2 sessions: 1 changed`);
    const kept = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/${runParts.previousSummary(spec, 1)}` }));
    expect(JSON.parse(await kept.Body!.transformToString())).toEqual(before);
    expect((await openRunStore(location).readSummary(spec))?.metrics.unresolved).toBe(before.metrics.unresolved + 1);
  });

  it.skipIf(!HAVE_PAPER_RUNS)(
    're-reads imported arms with our parser: the stored readings stand, and an edited reply is rescored',
    async () => {
      const out = join(temporal.dir, 'paper');
      const arms = ['urn_haiku_n-announced', 'claim_solver_haiku_n-announced', 'arm_a1_announce_n-announced'];
      const imported = runCli('import', ...arms.map((arm) => join(PAPER_RUNS, arm)), '--out', out);
      expect(imported.status, imported.stderr).toBe(0);
      const result = runCli('rescore', out);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain(`${join(out, 'urn_haiku_n-announced')}: 24 sessions: 0 changed, 24 unchanged`);
      expect(result.stdout).toContain(`${join(out, 'claim_solver_haiku_n-announced')}: 24 sessions: 0 changed, 24 unchanged`);
      expect(result.stdout).toContain(
        `${join(out, 'arm_a1_announce_n-announced')}: 24 sessions: 0 changed, 0 unchanged, 0 not finished, 24 imported R3 sessions left as imported`,
      );

      const urn = join(out, 'urn_haiku_n-announced');
      const [spec] = expandSweep((await openRunStore(urn).readManifest())!.config) as [SessionSpec];
      const pass = turnsOf(urn, spec).find((turn) => turn.decision.action === 'pass' && turn.decision.resolved) as TurnRecord;
      editTranscript(urn, spec, (record) =>
        record.type === 'turn' && record.t === pass.t ? { ...record, reply: { text: 'Hmm.', toolCalls: [] } } : record,
      );
      const edited = runCli('rescore', urn);
      expect(edited.status, edited.stderr).toBe(0);
      expect(edited.stdout).toContain(
        `changed ${sessionKey(spec)}: turn ${pass.t} pass (${pass.decision.how}) → pass, unresolved (no-decision); unresolved`,
      );
      expect(existsSync(join(runLayout.session(urn, spec), 'summary.prev-1.json'))).toBe(true);
    },
    180_000,
  );
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
