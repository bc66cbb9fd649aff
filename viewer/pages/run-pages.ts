import { FAMILY_NAMES } from '../../core/families/family.js';
import { agentName } from '../../core/sweep/session-spec.js';
import { cellRow, CELL_COLUMNS } from '../../analysis/cell-rows.js';
import type { CellResult } from '../../analysis/run-results.js';
import { waitingLine, type RunCatalog } from '../run-catalog.js';
import type { LiveCounts, RunIndex } from '../run-index.js';
import type { SearchResult, SessionFilter } from '../session-search.js';
import { livePanel } from './live-panel.js';
import { html, page, query, type Html } from './markup.js';
import { cellsTable, sessionsTable } from './tables.js';
import { SESSION_STATES } from '../../run-store/session-states.js';

/** Sessions a page lists at most; the rest are a page away. */
export const SESSIONS_PER_PAGE = 100;

export const runHref = (id: string) => `/runs/${encodeURIComponent(id)}`;

/** The runs served, each with its live counts, and the locations waited for; while runs can still appear, reloaded when the catalog changes. */
export function runsPage(runs: readonly { id: string; index: RunIndex; live: LiveCounts }[], catalog: RunCatalog): string {
  const follow = catalog.following ? html`data-follow-runs="/api/runs" data-catalog="${JSON.stringify(catalog.describe())}"` : '';
  return page(
    'runs',
    [],
    html`<h1 ${follow}>Runs</h1>
      ${catalog.waitingFor.map(
        (location) => html`<p class="notice">${waitingLine(location)}. This page shows the run once a sweep has made it.</p>`,
      )}
      ${catalog.unopened.map((line) => html`<p class="notice failure">${line}</p>`)}
      ${runs.map(
        ({ id, index, live }) =>
          html`<h2><a href="${runHref(id)}">${index.name}</a></h2>
            <p class="muted">${index.location}</p>
            ${livePanel(live, `/api${runHref(id)}/live`)}`,
      )}`,
  );
}

function pager(
  href: string,
  params: Record<string, string | number | undefined>,
  pageNumber: number,
  total: number,
  perPage: number,
): Html {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages === 1) return html``;
  const link = (n: number, label: string) => html`<a href="${href}${query({ ...params, page: n })}">${label}</a>`;
  return html`<p class="pager">
    ${pageNumber > 1 ? link(pageNumber - 1, '← previous') : ''} page ${pageNumber} of ${pages}
    ${pageNumber < pages ? link(pageNumber + 1, 'next →') : ''}
  </p>`;
}

function searchForm(href: string, index: RunIndex, filter: SessionFilter): Html {
  const options = (values: readonly string[], chosen: string | undefined) =>
    values.map((value) => html`<option value="${value}" ${value === chosen ? html`selected` : ''}>${value || 'any'}</option>`);
  const rungs = ['', ...new Set(index.sessions.map((s) => s.spec.rung))];
  const terminations = ['', ...new Set(index.sessions.flatMap((s) => (s.summary ? [s.summary.termination] : [])))];
  return html`<form class="search" method="get" action="${href}#sessions">
    <label>model <input name="model" value="${filter.model ?? ''}" size="18" /></label>
    <label
      >rung
      <select name="rung">
        ${options(rungs, filter.rung)}
      </select></label
    >
    <label>seed <input name="seed" value="${filter.seed ?? ''}" size="6" inputmode="numeric" /></label>
    <label
      >state
      <select name="state">
        ${options(['', ...SESSION_STATES], filter.state)}
      </select></label
    >
    <label
      >termination
      <select name="termination">
        ${options(terminations, filter.termination)}
      </select></label
    >
    <label><input type="checkbox" name="unresolved" value="1" ${filter.unresolved ? html`checked` : ''} /> unresolved turns</label>
    <label>text in replies <input name="text" value="${filter.text ?? ''}" size="18" /></label>
    <button type="submit">search</button>
  </form>`;
}

export interface RunPageInput {
  readonly id: string;
  readonly index: RunIndex;
  readonly live: LiveCounts;
  readonly cells: readonly CellResult[];
  readonly onlineNote: string;
  readonly filter: SessionFilter;
  readonly found: SearchResult;
  readonly page: number;
  readonly params: Record<string, string | undefined>;
}

/** A run: its live counts, its cells with the CLI's metrics, and its sessions, searchable. */
export function runPage(input: RunPageInput): string {
  const href = runHref(input.id);
  const { found } = input;
  const shown = found.sessions.slice((input.page - 1) * SESSIONS_PER_PAGE, input.page * SESSIONS_PER_PAGE);
  const scanned =
    found.scanned === null
      ? ''
      : ` (text searched in ${found.scanned} transcripts${found.truncated ? `; the first ${found.sessions.length} matches` : ''})`;
  const manifest = input.index.manifest;
  return page(
    input.index.name,
    [{ label: input.index.name }],
    html`<h1>${input.index.name}</h1>
      <p class="muted">
        ${input.index.location} · experiment ${manifest.experimentHash.slice(0, 12)} · created
        ${manifest.createdAt}${manifest.import ? ` · imported from ${manifest.import.source}` : ''} · ${FAMILY_NAMES.length} families ·
        <a href="${href}/report/">report (tables and figures)</a>
      </p>
      ${livePanel(input.live, `/api${href}/live`)}
      <h2>Cells</h2>
      ${cellsTable(href, input.cells, input.onlineNote)}
      <h2 id="sessions">Sessions</h2>
      ${searchForm(href, input.index, input.filter)}
      <p>${found.sessions.length} sessions${scanned}.</p>
      ${sessionsTable(href, shown)}${pager(href, input.params, input.page, found.sessions.length, SESSIONS_PER_PAGE)}`,
  );
}

/** One cell: its row of metrics and its sessions by seed. */
export function cellPage(id: string, index: RunIndex, cellIndex: number, cell: CellResult): string {
  const href = runHref(id);
  const sessions = index.sessions.filter((s) => s.cell === cellIndex).sort((a, b) => a.spec.seed - b.spec.seed);
  const name = `${agentName(cell.model, cell.builder)} ${cell.rung}${cell.reskin ? ` ${cell.reskin}` : ''} B${cell.budget} K${cell.charge}`;
  return page(
    name,
    [{ href, label: index.name }, { label: name }],
    html`<h1>${name}</h1>
      <table>
        <thead>
          <tr>
            ${CELL_COLUMNS.map((c) => html`<th>${c}</th>`)}
          </tr>
        </thead>
        <tbody>
          <tr>
            ${cellRow(cell).map((text) => html`<td>${text}</td>`)}
          </tr>
        </tbody>
      </table>
      <h2>Sessions by seed</h2>
      ${sessionsTable(href, sessions)}`,
  );
}
