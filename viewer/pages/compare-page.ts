import type { IndexedSession } from '../run-index.js';
import { positionOf, type Conversation, type Entry } from '../session-conversation.js';
import { entryView, type EntryContext } from './entry-view.js';
import { html, page, query, type Html } from './markup.js';

/** Stream positions a page of a comparison shows. */
export const POSITIONS_PER_PAGE = 15;

/** One side of a comparison. */
export interface CompareSide {
  readonly runName: string;
  readonly href: string;
  readonly session: IndexedSession;
  readonly conversation: Conversation | null;
  readonly problem?: string;
  readonly context: EntryContext;
}

/** Entries by stream position; an entry without one (an event, an R3 call still open) goes with the position before it. */
function byPosition(conversation: Conversation | null): Map<number, Entry[]> {
  const groups = new Map<number, Entry[]>();
  let last = 0;
  for (const entry of conversation?.entries ?? []) {
    last = positionOf(entry) ?? last;
    groups.set(last, [...(groups.get(last) ?? []), entry]);
  }
  return groups;
}

const heading = (side: CompareSide) =>
  html`<a href="${side.href}"
      >${side.session.spec.model} · ${side.session.spec.rung}${side.session.spec.reskin ? ` ${side.session.spec.reskin}` : ''} · seed
      ${side.session.spec.seed}</a
    >
    <div class="muted">
      ${side.runName} ·
      ${side.session.state}${side.session.summary ? ` · ${side.session.summary.termination} · net ${side.session.summary.metrics.net}` : ''}
    </div>
    ${side.problem ? html`<div class="notice failure">${side.problem}</div>` : ''}
    <div class="optimum-total muted" data-optimum-total="${side.context.optimum}"></div>`;

/** Two sessions side by side, aligned by stream position (the decision turn, or the problem at R3). */
export function comparePage(a: CompareSide, b: CompareSide, pageNumber: number, params: Record<string, string>): string {
  const [left, right] = [byPosition(a.conversation), byPosition(b.conversation)];
  const positions = [...new Set([...left.keys(), ...right.keys()])].sort((x, y) => x - y);
  const pages = Math.max(1, Math.ceil(positions.length / POSITIONS_PER_PAGE));
  const current = Math.min(Math.max(1, pageNumber), pages);
  const shown = positions.slice((current - 1) * POSITIONS_PER_PAGE, current * POSITIONS_PER_PAGE);
  // As on a session page, a decision turn's optimum goes beside its first entry, which may be on an earlier page.
  for (const [groups, side] of [
    [left, a],
    [right, b],
  ] as const)
    for (const t of positions.slice(0, (current - 1) * POSITIONS_PER_PAGE)) if (groups.has(t)) side.context.optimumAt.delete(t);
  const cell = (groups: Map<number, Entry[]>, side: CompareSide, t: number): Html =>
    html`<td>${(groups.get(t) ?? []).map((entry) => entryView(entry, side.context))}</td>`;
  const nav =
    pages > 1
      ? html`<nav class="pager">
          ${Array.from({ length: pages }, (_, i) =>
            i + 1 === current ? html`<b>${i + 1}</b> ` : html`<a href="/compare${query({ ...params, page: i + 1 })}">${i + 1}</a> `,
          )}
        </nav>`
      : html``;
  return page(
    'compare',
    [{ label: 'compare' }],
    html`<h1>Side by side, by stream position</h1>
      ${nav}
      <table class="compare">
        <thead>
          <tr>
            <th class="position">t</th>
            <th>${heading(a)}</th>
            <th>${heading(b)}</th>
          </tr>
        </thead>
        <tbody>
          ${shown.map(
            (t) =>
              html`<tr id="t-${t}">
                <th class="position">${t === 0 ? '' : t}</th>
                ${cell(left, a, t)}${cell(right, b, t)}
              </tr>`,
          )}
        </tbody>
      </table>
      ${nav}`,
  );
}
