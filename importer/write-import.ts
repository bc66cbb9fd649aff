import { InputError } from '../core/errors.js';
import { parseSweepConfig, type SweepConfig } from '../core/sweep/sweep-config.js';
import { expandSweep } from '../core/sweep/expand-sweep.js';
import { sessionKey } from '../core/sweep/session-spec.js';
import { slug } from '../core/sweep/slug.js';
import { runVersions } from '../infra/run-versions.js';
import { newManifest } from '../run-store/manifest.js';
import { openRunStore } from '../run-store/open-run-store.js';
import type { ImportProvenance } from '../run-store/provenance.js';
import { childLocation } from '../run-store/run-location.js';
import type { WholeSession } from '../run-store/run-store.js';
import { buildSessionSummary } from '../run-store/session-summary.js';
import type { TranscriptRecord } from '../run-store/transcript.js';
import type { ImportedSession } from './imported-session.js';
import type { ImportedArm } from './read-arm.js';

export type ImportStatus = 'imported' | 'unchanged' | 'replaced';

/** The run directory an arm is imported into: its source path with '/' as '__'. */
const importedRunName = (source: string) => slug(source.replaceAll('/', '__'));

/** The sweep an imported arm would be: one cell, its seeds, its source settings. */
function sweepOf(arm: ImportedArm): SweepConfig {
  const s = arm.settings;
  return parseSweepConfig(
    {
      name: importedRunName(arm.source),
      models: [s.model],
      rungs: [s.rung],
      seeds: arm.sessions.map((session) => session.seed),
      budgets: [s.budget],
      charges: [s.charge],
      reskins: [s.reskin ?? 'ball'],
      announceN: [s.announceN],
      stream: arm.streamConfig,
      streams: arm.dir,
      tokenCap: s.tokenCap,
      unitCap: s.unitCap,
      runCap: s.runCap,
      emptyRetries: s.emptyRetries,
      // Every cell of the authors' economic surface stated the charge rule, K = 0 included.
      economic: arm.source.startsWith('economic_surface_'),
      temperature: null,
      ...(s.r3End && { r3: { end: s.r3End } }),
    },
    `${arm.source}: settings`,
  );
}

/** The files of one session: summary.json and transcript.jsonl, stamped with the import's time. */
function sessionFiles(session: ImportedSession, config: SweepConfig, at: string): WholeSession {
  const spec = expandSweep(config).find((candidate) => candidate.seed === session.seed);
  if (!spec) throw new Error(`no session for seed ${session.seed}`);
  const key = sessionKey(spec);
  const retried = new Set(session.transcript.flatMap((r) => (r.type === 'attempt' && r.outcome !== 'ok' ? [r.t] : [])));
  const summary = buildSessionSummary({
    spec,
    streamHash: session.stream.hash,
    termination: session.termination,
    decisions: session.decisions,
    metrics: session.metrics,
    script: session.script,
    accounting: {
      responseModels: session.responseModels,
      modelMismatch: false,
      usage: session.usage,
      costUsd: session.costUsd,
      attempts: { total: session.calls, transportErrors: 0, permanentErrors: 0, retriedTurns: retried.size },
    },
    finishedAt: at,
  });
  const transcript: TranscriptRecord[] = [
    { type: 'session', at, sessionKey: key, spec, streamHash: session.stream.hash, system: '', tools: [] },
    ...session.transcript.map((record): TranscriptRecord => {
      if (record.type === 'attempt') {
        const { t, attempt, outcome, usage, responseModel } = record;
        return {
          type: 'attempt',
          at,
          t,
          attempt,
          activityAttempt: attempt,
          latencyMs: 0,
          outcome,
          usage,
          usageEstimated: false,
          ...(responseModel && { responseModel }),
        };
      }
      return { ...record, at };
    }),
    { type: 'end', at, termination: session.termination },
  ];
  return { summary, transcript };
}

const sameFiles = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([path, hash]) => b[path] === hash);

function describeChange(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): string {
  const changed = Object.keys(after).filter((path) => path in before && before[path] !== after[path]).length;
  const added = Object.keys(after).filter((path) => !(path in before)).length;
  const removed = Object.keys(before).filter((path) => !(path in after)).length;
  return [changed && `${changed} changed`, added && `${added} added`, removed && `${removed} removed`].filter(Boolean).join(', ');
}

/**
 * Writes an imported arm as an ordinary run directory under `outDir`. Writing
 * goes to a temporary directory renamed into place, so nothing half-written is
 * ever left. The same source imported again changes nothing; a changed source
 * under an existing import is refused unless `replace`.
 */
export async function writeImportedArm(
  arm: ImportedArm,
  outDir: string,
  options: { root: string; replace: boolean },
): Promise<{ status: ImportStatus; runDir: string }> {
  const runDir = childLocation(outDir, importedRunName(arm.source));
  const store = openRunStore(runDir);
  const existing = await store.readManifest().catch(() => undefined);
  if (existing) {
    if (!existing.import) throw new InputError(`${runDir}: exists and is not an import; choose another --out`);
    if (existing.import.source === arm.source && sameFiles(existing.import.files, arm.files)) return { status: 'unchanged', runDir };
    if (!options.replace) {
      throw new InputError(
        `${runDir}: already holds an import of ${existing.import.source} from other files (${describeChange(existing.import.files, arm.files)}); pass --replace to overwrite it`,
      );
    }
  }
  const importedAt = new Date().toISOString();
  const config = sweepOf(arm);
  const provenance: ImportProvenance = { source: arm.source, root: options.root, files: arm.files, settings: arm.settings, importedAt };
  const sessions = arm.sessions.map((session) => sessionFiles(session, config, importedAt));
  await store.writeWholeRun(
    newManifest(config, runVersions(), provenance),
    arm.sessions.map((session) => session.stream),
    sessions,
    existing !== undefined,
  );
  return { status: existing ? 'replaced' : 'imported', runDir };
}
