import { describeTornLine, type TornLine } from '../../run-store/json-files.js';
import type { SessionSummary } from '../../run-store/session-summary.js';
import type { IndexedSession, RunIndex } from '../run-index.js';
import { retried, settledEntries, type Conversation, type Entry } from '../session-conversation.js';
import { anchorOf, entryView } from './entry-view.js';
import { html, page, query, usd, type Html } from './markup.js';
import { runHref } from './run-pages.js';

/** Entries a page of a conversation shows: a 500-call R3 session is ten pages. */
export const ENTRIES_PER_PAGE = 50;

export interface SessionPageInput {
  readonly id: string;
  readonly index: RunIndex;
  readonly session: IndexedSession;
  readonly conversation: Conversation | null;
  /** Why the transcript cannot be read, one line. */
  readonly unreadable?: string;
  readonly torn: TornLine | null;
  readonly summary?: SessionSummary;
  readonly decisionTurns: ReadonlySet<number>;
  readonly credited: ReadonlyMap<number, string>;
  /** The session may still write: the page follows it. */
  readonly following: boolean;
  readonly workflow: string | null;
  /** Sessions of other models or rungs on the same seed. */
  readonly peers: readonly { readonly href: string; readonly label: string }[];
  readonly page: number;
}

/** What a page following a session gets at each read: the facts, and its entries from `from` on (each one element). */
export interface SessionUpdate {
  readonly facts: string;
  readonly from: number;
  readonly entries: readonly string[];
  /** Entries, from the first, that stay as they are: the next read asks from there. */
  readonly settled: number;
  readonly count: number;
  readonly following: boolean;
}

type SessionView = Pick<SessionPageInput, 'id' | 'session' | 'conversation' | 'summary' | 'decisionTurns' | 'credited' | 'following'>;

const sessionHref = (id: string, session: IndexedSession) => `${runHref(id)}/sessions/${encodeURIComponent(session.folder)}`;

function facts(session: IndexedSession, summary: SessionSummary | undefined): Html {
  const state =
    session.state === 'unreadable'
      ? html`<b class="failure">summary unreadable</b>: ${session.corrupt ?? ''}`
      : html`<b>${session.state}</b>`;
  if (!summary) return html`<p>${state}</p>`;
  const m = summary.metrics;
  return html`<p>
    ${state} · termination <b>${summary.termination}</b>${session.state !== 'finished'
      ? html` · <b class="failure">not measured: run the sweep again to go on with it</b>`
      : ''}
    · net <b>${m.net}</b> of hindsight optimum ${m.optimum} · ${m.commitments} commitments · ${m.firstSightCommitments} at first sight ·
    ${m.unresolved} unresolved · ${summary.attempts.total} attempts (${summary.attempts.retriedTurns} turns retried,
    ${summary.attempts.transportErrors} transport errors) · tokens ${summary.usage.inputTokens} in (${summary.usage.cachedInputTokens}
    cached) / ${summary.usage.outputTokens} out${summary.usage.estimated ? ' (estimated)' : ''} ·
    ${usd(summary.costUsd)}${summary.modelMismatch
      ? html` · <b class="failure">model mismatch: ${summary.responseModels.join(', ')}</b>`
      : ''}
  </p>`;
}

function prologue(conversation: Conversation): Html {
  const start = conversation.start;
  if (!start) return html``;
  const tools = (label: string, list: typeof start.tools) =>
    html`<details class="prologue">
      <summary>${label} (${list.length})</summary>
      ${list.map(
        (tool) =>
          html`<div class="tool-spec">
            <b>${tool.name}</b> — ${tool.description}
            <pre>${JSON.stringify(tool.parameters, null, 2)}</pre>
          </div>`,
      )}
    </details>`;
  return html`${start.planner
      ? html`<details class="prologue">
            <summary>planner's system prompt</summary>
            <pre>${start.planner.system}</pre>
          </details>
          ${tools("planner's tools", start.planner.tools)}`
      : ''}
    <details class="prologue">
      <summary>${start.planner ? "builder's system prompt" : 'system prompt'}</summary>
      <pre>${start.system}</pre>
    </details>
    ${tools(start.planner ? "builder's tools" : 'tools', start.tools)}`;
}

const pageOfEntry = (position: number) => Math.floor(position / ENTRIES_PER_PAGE) + 1;

/** The entries from `from` up to `to`, each one element, policy/optimal beside each decision turn's first entry among them. */
function entryViews(view: SessionView, from: number, to: number): Html[] {
  const entries = view.conversation?.entries ?? [];
  const context = {
    optimum: `/api${sessionHref(view.id, view.session)}/optimum`,
    optimumAt: new Set(view.decisionTurns),
    credited: view.credited,
    ended: entries.some((e) => e.kind === 'end'),
  };
  for (const entry of entries.slice(0, from)) if (entry.kind === 'turn' || entry.kind === 'call') context.optimumAt.delete(entry.record.t);
  return entries.slice(from, to).map((entry) => entryView(entry, context));
}

/** The session as it stands now, for a page that follows it and has its entries up to `from`. */
export function sessionUpdate(view: SessionView, from: number): SessionUpdate {
  const entries = view.conversation?.entries ?? [];
  const start = Math.min(from, entries.length);
  return {
    facts: facts(view.session, view.summary).text,
    from: start,
    entries: entryViews(view, start, entries.length).map((entry) => entry.text),
    settled: settledEntries(entries),
    count: entries.length,
    following: view.following,
  };
}

/** Links to every retried turn or call, on whichever page it is. */
function retriedIndex(href: string, entries: readonly Entry[]): Html {
  const list = entries.flatMap((entry, position) =>
    retried(entry) && (entry.kind === 'turn' || entry.kind === 'call' || entry.kind === 'open')
      ? [
          html`<a href="${href}${query({ page: pageOfEntry(position) })}#${anchorOf(entry)}"
            >${entry.kind === 'call' ? `call ${entry.record.call}` : `turn ${entry.kind === 'turn' ? entry.record.t : entry.t}`}</a
          >`,
        ]
      : [],
  );
  return list.length === 0
    ? html``
    : html`<p class="retried-index">Retried: ${list.map((link, i) => html`${i > 0 ? ', ' : ''}${link}`)}</p>`;
}

function pager(href: string, pageNumber: number, pages: number): Html {
  if (pages <= 1) return html``;
  return html`<nav class="pager">
    ${Array.from({ length: pages }, (_, i) =>
      i + 1 === pageNumber ? html`<b>${i + 1}</b> ` : html`<a href="${href}${query({ page: i + 1 })}">${i + 1}</a> `,
    )}
  </nav>`;
}

/** A session as a conversation: the facts, the opening folded away, then a page of its turns or calls, each with its attempts and, at a decision, policy/optimal's choice. */
export function sessionPage(input: SessionPageInput): string {
  const { session, conversation } = input;
  const run = runHref(input.id);
  const href = sessionHref(input.id, session);
  const entries = conversation?.entries ?? [];
  const pages = Math.max(1, Math.ceil(entries.length / ENTRIES_PER_PAGE));
  const pageNumber = Math.min(Math.max(1, input.page), pages);
  const first = (pageNumber - 1) * ENTRIES_PER_PAGE;
  const optimum = `/api${href}/optimum`;
  // The last page grows with the session: its script appends what the session writes, until it ends.
  const follow =
    input.following && pageNumber === pages
      ? html`data-follow="/api${href}/live" data-first="${first}" data-settled="${Math.max(first, settledEntries(entries))}"`
      : '';
  const notices = [
    input.torn ? html`<p class="notice">${describeTornLine(input.torn)}. It is shown below as it stands.</p>` : '',
    input.unreadable ? html`<p class="notice failure">Transcript unreadable: ${input.unreadable}</p>` : '',
    session.state === 'unreadable' ? html`<p class="notice failure">Summary unreadable: ${session.corrupt ?? ''}</p>` : '',
  ];
  return page(
    session.key,
    [
      { href: run, label: input.index.name },
      { href: `${run}/cells/${session.cell}`, label: `cell ${session.cell}` },
      { label: `seed ${session.spec.seed}` },
    ],
    html`<h1>
        ${session.spec.model} · ${session.spec.rung}${session.spec.reskin ? ` · ${session.spec.reskin}` : ''} · seed ${session.spec.seed}
      </h1>
      <p class="muted">
        ${session.key}${input.workflow
          ? html` · <a href="${input.workflow}" target="_blank" rel="noopener">workflow in the Temporal Web UI</a>`
          : ''}
      </p>
      <div data-facts>${facts(session, input.summary)}</div>
      ${notices}
      ${input.peers.length > 0
        ? html`<p class="compare-with">
            Compare with: ${input.peers.map((peer, i) => html`${i > 0 ? ' · ' : ''}<a href="${peer.href}">${peer.label}</a>`)}
          </p>`
        : ''}
      <p data-optimum-total="${optimum}" class="optimum-total muted"></p>
      ${conversation ? prologue(conversation) : ''}${retriedIndex(href, entries)}
      <p class="muted"><span data-entry-count>${entries.length}</span> entries${pages > 1 ? `, page ${pageNumber} of ${pages}` : ''}.</p>
      ${pager(href, pageNumber, pages)}
      <div class="conversation" ${follow}>${entryViews(input, first, first + ENTRIES_PER_PAGE)}</div>
      ${pager(href, pageNumber, pages)}`,
  );
}
