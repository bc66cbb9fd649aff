import { agentName } from '../core/sweep/session-spec.js';
import { fixed, percent } from './number-format.js';
import type { CellResult } from './run-results.js';

/** The columns of the per-cell table, as the CLI prints them and the viewer shows them. */
export const CELL_COLUMNS = [
  'model',
  'rung',
  'reskin',
  'N',
  'B',
  'K',
  'sessions',
  'items/stream',
  'Score',
  'online Score',
  'online regret',
  'first-sight',
  'hazard',
  'commits/seed',
  'unresolved',
  'validity',
] as const;

/** Columns of text, not numbers (the rest align right). */
export const CELL_TEXT_COLUMNS = [0, 1, 2, 3, 15];

export const CELL_LEGEND =
  "K: the charge per commitment ('0 (stated)': an economic cell at K = 0, told the charge rule). Score: Σ net / Σ hindsight optimum. online Score: Σ net / Σ net of policy/optimal (the Bayes-optimal online policy) on the same streams; online regret: policy/optimal's net minus the cell's, per seed.";

/** One cell's row of the per-cell table, in CELL_COLUMNS' order. */
export function cellRow(cell: CellResult): string[] {
  return [
    agentName(cell.model, cell.builder),
    cell.rung,
    cell.reskin ?? '–',
    cell.announceN ? 'yes' : 'no',
    String(cell.budget),
    // An economic cell at K = 0 is told the charge rule: it is not the plain cell beside it.
    cell.economic && cell.charge === 0 ? '0 (stated)' : String(cell.charge),
    `${cell.finished}/${cell.sessions}`,
    fixed(cell.pooled?.itemsPerStream ?? null),
    // The paper does not score R3: its credit mixes allocation with script-writing ability.
    cell.rung === 'R3' ? '–' : percent(cell.pooled?.score ?? null),
    cell.rung === 'R3' ? '–' : percent(cell.online?.score ?? null),
    cell.rung === 'R3' ? '–' : fixed(cell.online?.meanRegret ?? null),
    percent(cell.pooled?.firstSight ?? null),
    percent(cell.pooled?.firstSightHazard ?? null),
    fixed(cell.pooled?.commitmentsPerSession ?? null),
    percent(cell.pooled?.unresolvedRate ?? null),
    validityOf(cell),
  ];
}

/** 'ok' only for a cell whose every session finished and which the paper's rule holds valid; else what keeps it from it. */
function validityOf(cell: CellResult): string {
  const unfinished = [
    cell.stopped > 0 && `${cell.stopped} stopped by the cap`,
    cell.cancelled > 0 && `${cell.cancelled} cancelled`,
    cell.mechanicalFailures > 0 && `${cell.mechanicalFailures} mechanical`,
  ].filter((part) => part !== false);
  const elsewhere = cell.sessions - cell.finished - cell.stopped - cell.cancelled - cell.mechanicalFailures;
  if (elsewhere > 0) unfinished.push(`${elsewhere} not finished`);
  if (unfinished.length > 0) return unfinished.join(', ');
  return cell.invalid ? 'INVALID (>10% unresolved)' : 'ok';
}
