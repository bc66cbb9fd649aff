import { agentName } from '../core/sweep/session-spec.js';
import { CELL_COLUMNS, CELL_LEGEND, CELL_TEXT_COLUMNS, cellRow } from '../analysis/cell-rows.js';
import { fixed, percent } from '../analysis/number-format.js';
import type { RunResults } from '../analysis/run-results.js';
import { table } from './format.js';

/** The per-cell table printed after a run or sweep. */
export function resultsTable(results: RunResults): string {
  const r3 = results.cells.filter((cell) => cell.script);
  const cells = table(CELL_COLUMNS, results.cells.map(cellRow), CELL_TEXT_COLUMNS);
  return r3.length === 0 ? `${cells}\n${CELL_LEGEND}` : `${cells}\n${CELL_LEGEND}\n\n${scriptTable(r3)}`;
}

/** R3's own diagnostics per cell (paper B.6, F.5); a split agent's first-sight builds are its planner's claims, the rest its builder's work. */
function scriptTable(cells: RunResults['cells']): string {
  const rows = cells.map((cell) => {
    const s = cell.script;
    return [
      agentName(cell.model, cell.builder),
      `${cell.budget}`,
      `${cell.charge}`,
      `${s?.firstSightBuilds ?? 0}/${s?.builds ?? 0}`,
      fixed(s?.buildsPerSession ?? null),
      String(s?.reuseRuns ?? 0),
      `${s?.crossClassRunsRefused ?? 0} (${percent(s?.refusedRunRate ?? null)})`,
      percent(s?.scriptSuccessRate ?? null),
      `${s?.rawAnswers ?? 0} (${percent(s?.rawAccuracy ?? null)} correct)`,
      `${s?.zeroBuildSessions ?? 0}/${s?.sessions ?? 0}`,
      fixed(s?.callsPerProblem ?? null),
      String(s?.writesRefused ?? 0),
      String(s?.forcedAdvances ?? 0),
      `${s?.answeredCorrectly ?? 0}/${s?.problemsShown ?? 0}`,
    ];
  });
  const header = [
    'R3 model',
    'B',
    'K',
    'first-sight builds',
    'builds/seed',
    'reuse runs',
    'refused runs',
    'script success',
    'raw answers',
    'zero-build seeds',
    'calls/problem',
    'refused writes',
    'forced advances',
    'answered correctly',
  ];
  return table(header, rows, [0]);
}

/** The one JSON object `run --json` prints. */
export function runJson(results: RunResults) {
  const { overall, totals } = results;
  return {
    sessions: results.states.finished,
    states: results.states,
    utility: totals.utility,
    optimum: totals.optimum,
    score: overall?.score ?? null,
    onlineScore: results.overallOnline?.score ?? null,
    onlineRegret: results.overallOnline?.meanRegret ?? null,
    firstSight: overall?.firstSight ?? null,
    commitments: totals.commitments,
    unresolved: totals.unresolved,
    unresolvedRate: overall?.unresolvedRate ?? null,
    mechanicalFailures: results.states.failed,
    runDir: results.runDir,
    cells: results.cells,
  };
}
