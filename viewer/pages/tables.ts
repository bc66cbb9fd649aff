import { CELL_COLUMNS, CELL_LEGEND, CELL_TEXT_COLUMNS, cellRow } from '../../analysis/cell-rows.js';
import type { CellResult } from '../../analysis/run-results.js';
import type { IndexedSession } from '../run-index.js';
import { html, usd, type Html } from './markup.js';
import { STATE_WORDS } from '../../run-store/session-states.js';

/** The rows of the cells table, each linking its cell: the CLI's columns (cellRow), so no metric is computed twice. */
export function cellRows(runHref: string, cells: readonly CellResult[]): Html {
  return html`${cells.map(
    (cell, index) =>
      html`<tr>
        ${cellRow(cell).map((text, column) =>
          column === 0
            ? html`<td><a href="${runHref}/cells/${index}">${text}</a></td>`
            : html`<td class="${CELL_TEXT_COLUMNS.includes(column) ? '' : 'num'}">${text}</td>`,
        )}
      </tr>`,
  )}`;
}

/** Every cell of a run with the metrics the CLI prints, sortable by a click on a heading and filtered by the box above it. */
export function cellsTable(runHref: string, cells: readonly CellResult[], note: string): Html {
  return html`<div class="table-tools">
      <input type="search" placeholder="filter cells" data-filter="cells" aria-label="filter cells" />
    </div>
    <table class="sortable" id="cells" data-fragment="${runHref}/cells-rows">
      <thead>
        <tr>
          ${CELL_COLUMNS.map((column) => html`<th>${column}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${cellRows(runHref, cells)}
      </tbody>
    </table>
    <p class="muted">${CELL_LEGEND} ${note}</p>`;
}

/** Whether the session counts: only a finished one is measured; else its state says why not. */
const validityOf = (session: IndexedSession) => {
  const summary = session.summary;
  if (session.state !== 'finished' || !summary) return session.state === 'not read yet' ? '–' : STATE_WORDS[session.state];
  return summary.metrics.unresolved > 0 ? `${summary.metrics.unresolved} unresolved` : 'ok';
};

/** Sessions, one a row: seed, who and where, how far, how it ended, whether it counts, its net, cost and retries. */
export function sessionsTable(runHref: string, sessions: readonly IndexedSession[]): Html {
  if (sessions.length === 0) return html`<p class="muted">No session matches.</p>`;
  return html`<table class="sortable sessions">
    <thead>
      <tr>
        <th>seed</th>
        <th>model</th>
        <th>rung</th>
        <th>B</th>
        <th>K</th>
        <th>state</th>
        <th>termination</th>
        <th>validity</th>
        <th>net</th>
        <th>cost</th>
        <th>attempts</th>
        <th>retried turns</th>
      </tr>
    </thead>
    <tbody>
      ${sessions.map((session) => {
        const summary = session.summary;
        return html`<tr class="state-${session.state.replace(' ', '-')}">
          <td class="num"><a href="${runHref}/sessions/${session.folder}">${session.spec.seed}</a></td>
          <td><a href="${runHref}/sessions/${session.folder}">${session.spec.model}</a></td>
          <td>${session.spec.rung}${session.spec.reskin ? ` ${session.spec.reskin}` : ''}</td>
          <td class="num">${session.spec.budget}</td>
          <td class="num">${session.spec.charge}</td>
          <td>${session.state}</td>
          <td>${summary?.termination ?? '–'}</td>
          <td title="${session.corrupt ?? ''}">${validityOf(session)}</td>
          <td class="num">${summary ? summary.metrics.net : '–'}</td>
          <td class="num">${summary ? usd(summary.costUsd) : '–'}</td>
          <td class="num">${summary?.attempts.total ?? '–'}</td>
          <td class="num">${summary?.attempts.retriedTurns ?? '–'}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}
