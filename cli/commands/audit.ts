import { resolveRunLocation } from '../../run-store/run-location.js';
import type { Command } from 'commander';
import { printJson, table } from '../format.js';
import type { AuditedTurn } from '../../analysis/audit-report.js';
import { describeProgress } from '../../run-store/session-states.js';

function secondsBetween(from: string, to: string): string {
  return `+${((Date.parse(to) - Date.parse(from)) / 1000).toFixed(1)}s`;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))}s`;

/** The wait used after a failed attempt, and what the provider asked for when that differs. */
function waitOf(attempt: AuditedTurn['attempts'][number]): string {
  if (attempt.waitMs === undefined) return '';
  const asked =
    attempt.retryAfterMs !== undefined && attempt.retryAfterMs !== attempt.waitMs ? `, asked ${seconds(attempt.retryAfterMs)}` : '';
  return ` (wait ${seconds(attempt.waitMs)}${asked}${attempt.waitCapped ? ', capped' : ''})`;
}

export function registerAudit(program: Command): void {
  program
    .command('audit')
    .description(
      'retries, unresolved and cut-off decisions per turn of a run, with the stop reason and wait of every attempt and replies reused after a dead worker (from its transcripts)',
    )
    .argument('<run>', 'run directory or s3://bucket/prefix')
    .option('--json', 'print one JSON object')
    .action(async (run: string, flags: { json?: boolean }) => {
      const { auditRun } = await import('../../analysis/audit-report.js');
      const report = await auditRun(resolveRunLocation(run));
      if (flags.json) return printJson(report);
      const rows = report.turns.map((turn) => [
        turn.session,
        turn.role ? `${turn.role} ${turn.t}` : String(turn.t),
        turn.attempts
          .map(
            (a, i) =>
              `${a.attempt}:${a.outcome}${a.stopReason ? ` [${a.stopReason}]` : ''}${a.reminded ? ' (reminded)' : ''}${a.throttled ? ' (throttled)' : ''}` +
              (i > 0 ? ` ${secondsBetween(turn.attempts[i - 1]?.at as string, a.at)}` : '') +
              waitOf(a),
          )
          .join(', ') +
          (turn.lostAttempts > 0 ? ` (+${turn.lostAttempts} lost)` : '') +
          (turn.reused ? ` (reply ${turn.reused.attempt} reused by activity attempt ${turn.reused.reusedBy}, not paid again)` : ''),
        turn.decision,
      ]);
      const lines = [
        `${report.runDir}: ${describeProgress(report.states)}`,
        `${report.sessions} sessions begun, ${report.decisionTurns} decision turns, ${report.attempts} attempts`,
        `${report.retriedTurns} turns retried, ${report.unresolvedTurns} unresolved (${report.cutOffTurns} cut off by the output limit), ${report.lostAttempts} attempts lost to dead workers`,
        `${report.reusedReplies} recorded replies reused after a dead worker (not paid again), ${report.cappedWaits} retry-after waits capped`,
        `${report.throttledAttempts} throttled replies retried under the adaptive limit (not counted toward the three attempts)`,
        ...(rows.length > 0
          ? [
              '',
              table(
                ['session', 't', 'attempts (outcome [stop reason], time since previous, wait before the next)', 'decision'],
                rows,
                [0, 2, 3],
              ),
            ]
          : []),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
