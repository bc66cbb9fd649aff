import { fixed, percent, table } from './format.js';
import type { RunResults } from './run-results.js';

/** The per-cell table printed after a run or sweep. */
export function resultsTable(results: RunResults): string {
  const rows = results.cells.map((cell) => [
    cell.model,
    cell.rung,
    cell.reskin ?? '–',
    cell.announceN ? 'yes' : 'no',
    String(cell.budget),
    String(cell.charge),
    `${cell.finished}/${cell.sessions}`,
    fixed(cell.pooled?.itemsPerStream ?? null),
    percent(cell.pooled?.score ?? null),
    percent(cell.pooled?.firstSight ?? null),
    percent(cell.pooled?.firstSightHazard ?? null),
    fixed(cell.pooled?.commitmentsPerSession ?? null),
    percent(cell.pooled?.unresolvedRate ?? null),
    cell.mechanicalFailures > 0 ? `${cell.mechanicalFailures} mechanical` : cell.invalid ? 'INVALID (>10% unresolved)' : 'ok',
  ]);
  const header = ['model', 'rung', 'reskin', 'N', 'B', 'K', 'sessions', 'items/stream', 'Score', 'first-sight', 'hazard', 'commits/seed', 'unresolved', 'validity'];
  return table(header, rows, [0, 1, 2, 3, 13]);
}

/** The one JSON object `run --json` prints. */
export function runJson(results: RunResults) {
  const { overall, totals } = results;
  return {
    sessions: results.finished - results.mechanicalFailures,
    utility: totals.utility,
    optimum: totals.optimum,
    score: overall?.score ?? null,
    firstSight: overall?.firstSight ?? null,
    commitments: totals.commitments,
    unresolved: totals.unresolved,
    unresolvedRate: overall?.unresolvedRate ?? null,
    mechanicalFailures: results.mechanicalFailures,
    runDir: results.runDir,
    cells: results.cells,
  };
}
