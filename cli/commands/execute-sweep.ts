import { InputError } from '../../core/errors.js';
import { sessionKey } from '../../core/sweep/session-spec.js';
import { describeProgress, lastAttemptError, STATE_WORDS, type SessionReading } from '../../run-store/session-states.js';
import type { SweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import { isObjectStoreLocation, resolveRunLocation } from '../../run-store/run-location.js';
import { estimateSweep } from '../../client/cost-estimate.js';
import { IncompleteRunError } from '../exit-status.js';
import { printJson, table } from '../format.js';
import { resultsTable, runJson } from '../print-results.js';
import { runSweep } from '../../client/run-sweep.js';
import { progressBar } from '../progress-bar.js';
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

/** The sweep with --replay-from and --replay-miss applied (they win over a sweep file's `replay`), its recorded run resolved. */
function withReplay(config: SweepConfig, flags: ExecutionFlags): SweepConfig {
  if (flags.replayMiss !== undefined && flags.replayFrom === undefined && !config.replay)
    throw new InputError('--replay-miss: applies only with --replay-from (or a sweep file with replay.from)');
  const from = flags.replayFrom ?? config.replay?.from;
  if (from === undefined) return config;
  return { ...config, replay: { from: resolveRunLocation(from), miss: flags.replayMiss ?? config.replay?.miss ?? 'error' } };
}

/** Sessions listed one per line when some did not finish; the rest are counted. */
const LISTED_SESSIONS = 20;

/** Why a session is not finished, in a line, as the end of a run lists it. */
function unfinishedLine(reading: SessionReading, workflowsFailed: boolean): string {
  const key = sessionKey(reading.spec);
  switch (reading.state) {
    case 'stopped':
    case 'failed':
      return `${key} (${STATE_WORDS[reading.state]}: ${reading.summary?.termination})`;
    case 'in flight':
      return `${key} (did not end: ${workflowsFailed ? 'its workflow failed, see the Temporal Web UI' : 'the sweep stopped first'})`;
    case 'waiting':
      return `${key} (not begun)`;
    case 'unreadable':
      return `${key} (${reading.corrupt})`;
    default:
      return `${key} (${STATE_WORDS[reading.state]})`;
  }
}

/** The command as it was typed, to run again: each word quoted where the shell would split it. */
function thisCommand(): string {
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
  return ['npx allocbench', ...process.argv.slice(2).map(quote)].join(' ');
}

/** Runs a sweep and reports it: a table (or one JSON object) on stdout, where things are on stderr; exit 3 when some session did not finish. */
export async function executeSweep(requested: SweepConfig, flags: ExecutionFlags): Promise<void> {
  const config = withReplay(requested, flags);
  if (flags.estimate) return printEstimate(config, Boolean(flags.json));
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const bar = flags.json ? undefined : progressBar(expandSweep(config).length);
  const outcome = await runSweep(config, {
    ...(flags.out !== undefined && { out: flags.out }),
    ...(flags.temporalPort !== undefined && { temporalPort: flags.temporalPort }),
    workers: flags.worker,
    keepHistory: Boolean(flags.keepHistory),
    ...(bar?.listener && { onProgress: bar.listener }),
    say,
  }).finally(() => bar?.stop());
  const { runDir, results, unfinished } = outcome;
  if (outcome.cancelled) say(`The sweep was cancelled (allocbench cancel): its sessions stopped where they were.`);
  if (flags.json) printJson(runJson(results));
  else {
    process.stdout.write(`${resultsTable(results)}\n`);
    say(`${describeProgress(results.states)}.`);
    say(`Results in ${runDir}: manifest.json, streams/, sessions/<session>/summary.json and transcript.jsonl.`);
    say(`Audit retries and unresolved turns with: npx allocbench audit ${runDir}`);
    const reportDir = isObjectStoreLocation(runDir) ? `reports/${config.name}` : `${runDir}/report`;
    say(`Tables, figures and an HTML report with: npx allocbench analyze ${runDir} --out ${reportDir}`);
  }
  if (unfinished.length === 0) return;
  const store = openRunStore(runDir);
  say(`${unfinished.length} of ${results.total} sessions did not finish (exit status 3):`);
  for (const reading of unfinished.slice(0, LISTED_SESSIONS)) {
    const error = reading.state === 'failed' ? await lastAttemptError(store, reading.spec) : undefined;
    say(`  ${unfinishedLine(reading, outcome.workflowsFailed > 0)}${error ? `: ${error}` : ''}`);
  }
  if (unfinished.length > LISTED_SESSIONS) say(`  … and ${unfinished.length - LISTED_SESSIONS} more (npx allocbench status ${runDir})`);
  const capped = results.states.stopped > 0 ? ` (those a cost cap stopped need a higher --cap or --unit-cap, or none)` : '';
  say(`Running the same command again goes on with each from its last recorded turn${capped}: ${thisCommand()}`);
  throw new IncompleteRunError(`${unfinished.length} sessions did not finish`);
}
