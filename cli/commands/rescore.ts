import type { Command } from 'commander';
import { InputError } from '../../core/errors.js';
import { openRunStore, runsUnder } from '../../run-store/open-run-store.js';
import { EXIT } from '../exit-status.js';
import { printJson } from '../format.js';
import type { RunRescore, SessionRescore } from '../../analysis/rescore-run.js';

const count = (run: RunRescore, status: SessionRescore['status']) => run.sessions.filter((s) => s.status === status).length;

/** The counts of one run, as its closing line and its JSON say them. */
function counts(run: RunRescore) {
  return {
    sessions: run.sessions.length,
    changed: count(run, 'changed'),
    unchanged: count(run, 'unchanged'),
    rebuilt: count(run, 'rebuilt'),
    notFinished: count(run, 'not-finished'),
    leftAsImported: run.sessions.filter((s) => s.status === 'left' && s.why === 'imported-r3').length,
    leftSplit: run.sessions.filter((s) => s.status === 'left' && s.why === 'split-agent').length,
    failed: count(run, 'failed'),
  };
}

function report(run: RunRescore, dryRun: boolean): void {
  for (const s of run.sessions) {
    if (s.status === 'changed') process.stdout.write(`changed ${s.session}: ${s.changes.join('; ')}\n`);
    if (s.status === 'failed') process.stderr.write(`allocbench: rescore: ${s.reason}\n`);
  }
  const c = counts(run);
  const changed = dryRun
    ? `${c.changed} would change (nothing written: --dry-run)`
    : `${c.changed} changed${c.changed > 0 ? ' (summaries rewritten, each previous one kept beside it as summary.prev-<N>.json)' : ''}`;
  const left =
    c.leftAsImported > 0
      ? `, ${c.leftAsImported} imported R3 sessions left as imported (their metrics come from the authors' records, which a run does not keep; import the arm into a new --out to score them with the current code)`
      : '';
  const rebuilt =
    c.rebuilt > 0
      ? `, ${c.rebuilt} unreadable summaries ${dryRun ? 'would be ' : ''}built again from their transcripts${dryRun ? '' : ' (each unreadable one kept beside it as summary.prev-<N>.json)'}`
      : '';
  const split = c.leftSplit > 0 ? `, ${c.leftSplit} split-agent sessions left as played (rescore does not re-read them yet)` : '';
  process.stdout.write(
    `${run.run}: ${c.sessions} sessions: ${changed}, ${c.unchanged} unchanged${rebuilt}, ${c.notFinished} not finished${left}${split}, ${c.failed} could not be rescored\n`,
  );
}

export function registerRescore(program: Command): void {
  program
    .command('rescore')
    .description(
      "recompute every finished session's decisions and metrics from its transcript with the current reply reading and metrics; summaries that change are rewritten, the previous ones kept",
    )
    .argument('<run...>', 'run directories or s3://bucket/prefix locations (or folders of runs, such as an import --out)')
    .option('--dry-run', 'report what would change and write nothing')
    .option('--json', 'print one JSON object')
    .addHelpText(
      'after',
      `
Each changed session is one line: the turns read otherwise (R3: the calls whose
answer or script output is checked otherwise) and every metric from what to
what. The run is locked while its summaries are rewritten.

Exit status:
  0  every finished session was rescored (changed or not)
  2  bad input (a location holds no run), a run in use by another command, or
     a file-system error on it
  3  some session could not be rescored, one line each on stderr naming it (an
     unreadable file, or a reading that changes what a turn did, so that the
     turns after it no longer follow); every other session was rescored`,
    )
    .action(async (locations: string[], flags: { dryRun?: boolean; json?: boolean }) => {
      const dryRun = Boolean(flags.dryRun);
      const runs: string[] = [];
      for (const location of locations) {
        const found = await runsUnder(location);
        if (found.length === 0) throw new InputError(`${location}: not a run directory (no manifest.json), and no run in it`);
        runs.push(...found);
      }
      const { rescoreRun } = await import('../../analysis/rescore-run.js');
      const results: RunRescore[] = [];
      for (const run of runs) {
        const lock = dryRun ? undefined : await openRunStore(run).lock((line) => process.stderr.write(`allocbench: ${line}\n`));
        try {
          const result = await rescoreRun(run, { dryRun });
          results.push(result);
          if (!flags.json) report(result, dryRun);
        } finally {
          await lock?.release();
        }
      }
      if (flags.json)
        printJson({
          dryRun,
          runs: results.map((run) => ({
            run: run.run,
            ...counts(run),
            changedSessions: run.sessions.flatMap((s) =>
              s.status === 'changed' ? [{ session: s.session, changes: s.changes, ...(s.kept && { kept: s.kept }) }] : [],
            ),
            failedSessions: run.sessions.flatMap((s) => (s.status === 'failed' ? [{ session: s.session, reason: s.reason }] : [])),
          })),
        });
      if (results.some((run) => counts(run).failed > 0)) process.exitCode = EXIT.incomplete;
    });
}
