import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import type { SweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { isObjectStoreLocation, resolveRunLocation } from '../../run-store/run-location.js';
import { sourceStreamConfig } from '../../run-store/stream-source.js';
import { readSweepSummaries } from '../../run-store/sweep-summaries.js';
import { estimateSweep } from '../cost-estimate.js';
import { IncompleteRunError, SweepCancelledError } from '../exit-status.js';
import { printJson, table } from '../format.js';
import { defaultCacheDir } from '../../analysis/stream-values-cache.js';
import { resultsTable, runJson } from '../print-results.js';
import { readRunResults } from '../run-results.js';
import { runSweep } from '../sweep-runner.js';
import { targetFromEnv } from '../../infra/temporal-target.js';
import type { ExecutionFlags } from './sweep-options.js';

async function printEstimate(config: SweepConfig, json: boolean): Promise<void> {
  const cells = await estimateSweep(config);
  if (json) return printJson({ estimate: cells });
  const usd = (value: number | null) => (value === null ? 'no price' : `$${value.toFixed(2)}`);
  const tokens = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : `${Math.round(n / 1e3)}k`);
  const rows = cells.map((c) => [
    c.model,
    c.rung,
    String(c.sessions),
    tokens(c.typical.usage.inputTokens),
    tokens(c.typical.usage.cachedInputTokens),
    tokens(c.typical.usage.outputTokens),
    usd(c.typical.costUsd),
    usd(c.worst.costUsd),
  ]);
  process.stdout.write(
    `${table(['model', 'rung', 'sessions', 'input', 'of which cached', 'output', 'typical cost', 'worst case'], rows, [0, 1])}\n` +
      'Typical: commit at the second occurrence, replies a quarter of the output allowance; worst: never commit (a split agent: whichever of never and at once costs more tokens), full-length replies. Tokens are estimated at 4 characters each.\n',
  );
}

/**
 * A sweep on another source's streams (`streams`) plays exactly those: every
 * seed must be there, and the run takes their generator settings as its own.
 */
async function withSourceStreams(config: SweepConfig): Promise<SweepConfig> {
  if (config.streams === null) return config;
  const streams = resolve(config.streams);
  return { ...config, streams, stream: await sourceStreamConfig(streams, config.seeds) };
}

/** The sweep with --replay-from and --replay-miss applied (they win over a sweep file's `replay`), its recorded run resolved. */
function withReplay(config: SweepConfig, flags: ExecutionFlags): SweepConfig {
  if (flags.replayMiss !== undefined && flags.replayFrom === undefined && !config.replay)
    throw new InputError('--replay-miss: applies only with --replay-from (or a sweep file with replay.from)');
  const from = flags.replayFrom ?? config.replay?.from;
  if (from === undefined) return config;
  return { ...config, replay: { from: resolveRunLocation(from), miss: flags.replayMiss ?? config.replay?.miss ?? 'error' } };
}

/** Sessions listed one per line when some did not complete; the rest are counted. */
const LISTED_SESSIONS = 20;

interface IncompleteSession {
  readonly spec: SessionSpec;
  readonly line: string;
  readonly mechanical: boolean;
}

/** Why a session without a summary has none: it never began, it was cancelled, or its workflow failed. */
async function unfinishedReason(runDir: string, spec: SessionSpec): Promise<string> {
  const store = openRunStore(runDir);
  if (!(await store.hasTranscript(spec))) return 'not begun';
  return (await store.readTranscript(spec)).cancelled ? 'cancelled' : 'did not finish: its workflow failed';
}

/** Every session of the run that did not complete: no summary (its workflow failed, was cancelled or never ran), an unreadable one, or a mechanical failure. */
async function incompleteSessions(config: SweepConfig, runDir: string): Promise<IncompleteSession[]> {
  const readings = await readSweepSummaries(openRunStore(runDir), expandSweep(config));
  const incomplete = await Promise.all(
    readings.map(async ({ spec, summary, corrupt }): Promise<IncompleteSession | undefined> => {
      if (corrupt) return { spec, line: `${sessionKey(spec)} (${corrupt})`, mechanical: false };
      if (!summary) return { spec, line: `${sessionKey(spec)} (${await unfinishedReason(runDir, spec)})`, mechanical: false };
      if (summary.mechanicalFailure)
        return { spec, line: `${sessionKey(spec)} (mechanical failure: ${summary.termination})`, mechanical: true };
      return undefined;
    }),
  );
  return incomplete.filter((session) => session !== undefined);
}

/** The error of a session's last failed attempt, on one line (a replay's miss says which call and why). */
async function lastError(runDir: string, spec: SessionSpec): Promise<string> {
  const records = await openRunStore(runDir)
    .readTranscriptRecords(spec)
    .catch(() => []);
  const errors = records.flatMap((record) => (record.type === 'attempt' && record.error ? [record.error] : []));
  const error = errors.at(-1);
  return error ? `: ${error.split('\n')[0]}` : '';
}

/** Runs a sweep and reports it: a table (or one JSON object) on stdout, where things are on stderr. */
export async function executeSweep(requested: SweepConfig, flags: ExecutionFlags): Promise<void> {
  const config = withReplay(await withSourceStreams(requested), flags);
  if (flags.estimate) return printEstimate(config, Boolean(flags.json));
  const runDir = resolveRunLocation(flags.out ?? `runs/${config.name}`);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  say(`Sweep ${config.name}: run directory ${runDir}`);
  const progress = await runSweep(config, {
    runDir,
    temporalPort: flags.temporalPort,
    inProcessWorkers: flags.worker,
    progressBar: !flags.json,
    say,
  }).catch((error: unknown) => {
    if (!(error instanceof SweepCancelledError)) throw error;
    say(`The sweep was cancelled (allocbench cancel): its sessions stopped where they were.`);
    return undefined;
  });
  // The run table measures each cell against policy/optimal on its streams too (its nets kept in the cache).
  const results = await readRunResults(runDir, { cacheDir: defaultCacheDir(), say });
  const incomplete = await incompleteSessions(config, runDir);
  if (flags.json) printJson(runJson(results));
  else {
    process.stdout.write(`${resultsTable(results)}\n`);
    const failed = progress && progress.failed > 0 ? ` · ${progress.failed} session workflows failed (see the Temporal Web UI)` : '';
    say(`${results.finished}/${results.total} sessions finished${failed}.`);
    say(`Results in ${runDir}: manifest.json, streams/, sessions/<session>/summary.json and transcript.jsonl.`);
    say(`Audit retries and unresolved turns with: npx allocbench audit ${runDir}`);
    const reportDir = isObjectStoreLocation(runDir) ? `reports/${config.name}` : `${runDir}/report`;
    say(`Tables, figures and an HTML report with: npx allocbench analyze ${runDir} --out ${reportDir}`);
  }
  if (incomplete.length === 0) {
    // A complete run needs the embedded server's state no more: the run store holds everything its results, audit and
    // report read, and running the sweep again finds every session finished. Its histories are about 60% of its bytes.
    if (!targetFromEnv() && flags.worker && !flags.keepHistory)
      await rm(openRunStore(runDir).localStateDir, { recursive: true, force: true });
    return;
  }
  say(
    `${incomplete.length} of ${results.total} sessions did not complete (exit status 3; run the same command again to replace them, or to resume those cancelled):`,
  );
  for (const { spec, line, mechanical } of incomplete.slice(0, LISTED_SESSIONS))
    say(`  ${line}${mechanical ? await lastError(runDir, spec) : ''}`);
  if (incomplete.length > LISTED_SESSIONS) say(`  … and ${incomplete.length - LISTED_SESSIONS} more (npx allocbench status ${runDir})`);
  throw new IncompleteRunError(`${incomplete.length} sessions did not complete`);
}
