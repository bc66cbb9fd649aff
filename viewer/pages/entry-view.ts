import hljs from 'highlight.js/lib/core';
import javascript from 'highlight.js/lib/languages/javascript';
import { runClocks } from '../../analysis/number-format.js';
import type { ModelReply, ToolCall } from '../../core/chat/messages.js';
import type { LoopCall } from '../../core/scripts/read-loop-calls.js';
import { callsOfStep, countedTokens, type AttemptRecord, type ExecutionRecord } from '../../run-store/transcript.js';
import type { CallEntry, Entry, OpenEntry, TurnEntry } from '../session-conversation.js';
import { retried } from '../session-conversation.js';
import type { TurnOptimum } from '../turn-optimum.js';
import { html, trusted, usd, type Html } from './markup.js';

hljs.registerLanguage('javascript', javascript);

/** R3's scripts are JavaScript (run in isolated-vm): highlighted on the server, so the page needs no script for it. */
const script = (code: string) =>
  html`<pre class="code"><code class="hljs language-javascript">${trusted(
    hljs.highlight(code, { language: 'javascript' }).value,
  )}</code></pre>`;

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/** A turn's or a call's anchor in the page. */
export const anchorOf = (entry: TurnEntry | CallEntry | OpenEntry) =>
  entry.kind === 'turn'
    ? `turn-${entry.record.t}`
    : entry.kind === 'call'
      ? `call-${entry.record.call}`
      : `open-${entry.role ?? ''}${entry.t}`;

/** Every provider call of a turn, in order: what came back (or the error), why it stopped, how long it waited before the next, its tokens and cost. */
function attemptsTable(attempts: readonly AttemptRecord[], lost: number, retriedTurn: boolean): Html {
  if (attempts.length === 0 && lost === 0) return html``;
  const rows = attempts.map((a) => {
    const notes = [
      a.throttled ? 'throttled (outside the three attempts)' : '',
      a.reminder !== undefined ? 'asked again with the format reminder' : '',
      a.replayedFrom ? `replayed from ${a.replayedFrom}` : '',
      a.retryAfterMs !== undefined ? `provider asked ${seconds(a.retryAfterMs)}` : '',
      a.waitCapped ? 'wait capped' : '',
      a.activityAttempt > 1 ? `activity attempt ${a.activityAttempt}` : '',
    ].filter(Boolean);
    return html`<tr class="outcome-${a.outcome}">
      <td class="num">${a.attempt}</td>
      <td>${a.outcome}${a.outcome === 'empty-reply' ? ' (dropped)' : ''}</td>
      <td>${a.stopReason ?? '–'}</td>
      <td class="num">${seconds(a.latencyMs)}</td>
      <td class="num">${a.waitMs === undefined ? '–' : seconds(a.waitMs)}</td>
      <td class="num">${a.usage.inputTokens}/${a.usage.cachedInputTokens}/${a.usage.outputTokens}</td>
      <td class="num">${countedTokens(a.usage)}</td>
      <td class="num">${a.costUsd === undefined ? '–' : usd(a.costUsd)}</td>
      <td>${a.error ?? ''}${a.error && notes.length ? ' · ' : ''}${notes.join(' · ')}</td>
    </tr>`;
  });
  const summary = `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}${lost > 0 ? `, ${lost} lost to a dead worker` : ''}`;
  return html`<details class="attempts" ${retriedTurn ? html`open` : ''}>
    <summary>${summary}</summary>
    <table>
      <thead>
        <tr>
          <th>#</th>
          <th>outcome</th>
          <th>stop</th>
          <th>latency</th>
          <th>wait before next</th>
          <th>tokens in/cached/out</th>
          <th>counted</th>
          <th>cost</th>
          <th>notes</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </details>`;
}

const toolCall = (call: ToolCall) =>
  html`<div class="tool-call">
    <b>${call.name}</b>
    <pre>${call.arguments}</pre>
  </div>`;

function replyView(reply: ModelReply): Html {
  return html`<div class="reply">
    <div class="label">model</div>
    <pre>${reply.text || '(no text)'}</pre>
    ${reply.toolCalls.map(toolCall)}
  </div>`;
}

const userView = (label: string, text: string, open: boolean) =>
  html`<details class="user" ${open ? html`open` : ''}>
    <summary>${label}</summary>
    <pre>${text}</pre>
  </details>`;

const badges = (entry: TurnEntry | CallEntry | OpenEntry) => {
  const reused = entry.kind !== 'open' ? entry.record.reused : undefined;
  return html`${retried(entry) ? html`<span class="badge retried">retried · ${entry.attempts.length} attempts</span>` : ''}${reused
    ? html`<span class="badge">reply of attempt ${reused.attempt} reused by activity attempt ${reused.reusedBy}, not paid again</span>`
    : ''}`;
};

const optimumAside = (source: string, t: number) =>
  html`<aside class="optimum" data-optimum-of="${source}" data-optimum-t="${t}">
    <span class="muted">policy/optimal: computing…</span>
  </aside>`;

function turnView(entry: TurnEntry, optimum: string | null, credited: string | undefined): Html {
  const { record } = entry;
  const decision = record.decision;
  const reading = decision.resolved
    ? html`<b>${decision.action === 'commit' ? 'commit (build)' : 'pass'}</b>${decision.how
          ? ` · read by ${decision.how}`
          : ''}${decision.failure ? ` · ${decision.failure}` : ''}`
    : html`<b class="failure">unresolved: ${decision.failure ?? ''}</b> — counts as a pass${record.detail ? html` · ${record.detail}` : ''}`;
  return html`<article class="entry turn${retried(entry) ? ' is-retried' : ''}" id="${anchorOf(entry)}">
    <header>
      <a href="#${anchorOf(entry)}">Turn ${record.t}</a>${entry.role ? ` (${entry.role})` : ''} · class ${decision.classId}, occurrence
      ${decision.occurrence} ${badges(entry)}
    </header>
    <div class="cols">
      <div class="main">
        ${userView('the problem as the model saw it', record.user, false)}${replyView(record.reply)}
        ${record.toolResults.length > 0
          ? html`<div class="tool-results">${record.toolResults.map((r) => html`<div>tool result: ${r.content}</div>`)}</div>`
          : ''}
        <p class="decision">decision: ${reading}${credited ? html` · <span class="credited">${credited}</span>` : ''}</p>
        ${attemptsTable(entry.attempts, entry.lost, retried(entry))}
      </div>
      ${optimum ? optimumAside(optimum, record.t) : ''}
    </div>
  </article>`;
}

function executionView(run: ExecutionRecord | undefined, starts: number | undefined): Html {
  if (!run) return html`<div class="run muted">not run${starts ? ` (started ${starts}×, no outcome recorded)` : ''}</div>`;
  const { outcome } = run;
  return html`<div class="run ${outcome.ok ? (run.correct ? 'ok' : 'wrong') : 'failure'}">
    ran on problem ${run.t} in ${runClocks(outcome)}:
    ${outcome.ok ? html`returned <code>${JSON.stringify(outcome.value)}</code>` : html`${outcome.kind}: ${outcome.error}`} —
    ${run.correct ? 'the gold answer' : 'not the gold answer'}${starts && starts > 1
      ? ` · started ${starts}× (a sandbox worker was lost)`
      : ''}${outcome.logs ? html`<pre class="logs">${outcome.logs}</pre>` : ''}
  </div>`;
}

function loopCallView(call: LoopCall, outcome: string, entry: CallEntry, index: number): Html {
  const head = html`<div class="label">${call.tool}${'name' in call ? html` <b>${call.name}</b>` : ''} → ${outcome}</div>`;
  switch (call.tool) {
    case 'write_script':
      return html`<div class="tool-call">${head}${script(call.code)}</div>`;
    case 'run_script':
      return html`<div class="tool-call">
        ${head}
        <pre>${JSON.stringify(call.inputs)}</pre>
        ${executionView(entry.executions.get(index), entry.starts.get(index))}
      </div>`;
    case 'submit_answer':
      return html`<div class="tool-call">
        ${head}
        <pre>${call.value}</pre>
      </div>`;
    case 'invalid':
    case 'unknown-tool':
      return html`<div class="tool-call failure">
        ${head}
        <pre>${call.detail}</pre>
      </div>`;
    default:
      return html`<div class="tool-call">${head}</div>`;
  }
}

function callView(entry: CallEntry, optimum: string | null): Html {
  const { record } = entry;
  const calls = callsOfStep(record);
  const outcomeText = (index: number) => {
    const outcome = record.outcomes[index];
    return outcome ? `${outcome.kind}${'name' in outcome ? ` ${outcome.name}` : ''}` : 'no outcome';
  };
  const ended =
    record.advanced === 'submitted'
      ? html`problem ${record.t}
        answered${record.submitted
          ? html` with <code>${record.submitted.value}</code> (${record.submitted.correct ? 'correct' : 'wrong'})`
          : ''}`
      : record.advanced === 'forced'
        ? html`<span class="failure">problem ${record.t} given up after two replies without a tool call</span>`
        : html``;
  return html`<article class="entry call${retried(entry) ? ' is-retried' : ''}" id="${anchorOf(entry)}">
    <header>
      <a href="#${anchorOf(entry)}">Call ${record.call}</a>${entry.role ? ` (${entry.role})` : ''} · problem ${record.t} (class
      ${record.classId}, occurrence ${record.occurrence}) · ${record.writesLeft} writes
      left${record.tokensRemaining === null ? '' : ` · ${record.tokensRemaining} tokens left`} ${badges(entry)}
    </header>
    <div class="cols">
      <div class="main">
        ${record.user ? userView('the message that opened this call', record.user, false) : ''}
        <div class="reply">
          <div class="label">model</div>
          <pre>${record.reply.text || '(no text)'}</pre>
          ${calls.map((call, index) => loopCallView(call, outcomeText(index), entry, index))}
        </div>
        <p class="decision">${ended}</p>
        ${attemptsTable(entry.attempts, entry.lost, retried(entry))}
      </div>
      ${optimum ? optimumAside(optimum, record.t) : ''}
    </div>
  </article>`;
}

function openView(entry: OpenEntry, ended: boolean): Html {
  const what = entry.call ? `Call ${entry.t}` : `Turn ${entry.t}`;
  const state = ended ? 'no reply recorded: the run stopped here' : 'no reply recorded yet: in flight, or where the run stopped';
  return html`<article class="entry open${retried(entry) ? ' is-retried' : ''}" id="${anchorOf(entry)}">
    <header>${what}${entry.role ? ` (${entry.role})` : ''} · <span class="muted">${state}</span> ${badges(entry)}</header>
    ${entry.attempts
      .filter((a) => a.reply)
      .map(
        (a) =>
          html`<div class="muted">attempt ${a.attempt}'s reply:</div>
            ${replyView(a.reply as ModelReply)}`,
      )}
    ${attemptsTable(entry.attempts, entry.lost, true)}
  </article>`;
}

/** Where an entry is shown: its session's optimum (an address), the decision turns still to get it beside them (each once), the credits. */
export interface EntryContext {
  readonly optimum: string;
  readonly optimumAt: Set<number>;
  readonly credited: ReadonlyMap<number, string>;
  readonly ended: boolean;
}

/** How one entry of a conversation shows. */
export function entryView(entry: Entry, context: EntryContext): Html {
  const slot = (t: number) => (context.optimumAt.delete(t) ? context.optimum : null);
  switch (entry.kind) {
    case 'turn':
      return turnView(entry, slot(entry.record.t), context.credited.get(entry.record.t));
    case 'call':
      return callView(entry, slot(entry.record.t));
    case 'open':
      return openView(entry, context.ended);
    case 'resume':
      return html`<p class="event failure">Replacement run after ${entry.record.after} (the rerun rule's attempts count afresh)</p>`;
    case 'end':
      return html`<p class="event">Ended: <b>${entry.record.termination}</b></p>`;
    case 'message':
      return html`<article class="entry message">
        <header>${entry.record.role} · problem ${entry.record.t}</header>
        <pre>${entry.record.text || '(no text)'}</pre>
        ${(entry.record.toolCalls ?? []).map(toolCall)}
      </article>`;
  }
}

/** policy/optimal beside a decision turn: its choice in the same state, both values, and what the decision cost. */
export function optimumView(turn: TurnOptimum): Html {
  const name = (action: string) => (action === 'commit' ? 'build' : 'pass');
  const agrees = turn.action === turn.optimum;
  return html`<div class="optimum-body ${agrees ? 'agrees' : 'differs'}">
    <div><b>policy/optimal: ${name(turn.optimum)}</b></div>
    <div>expected net: build ${turn.build === null ? '–' : turn.build.toFixed(3)} · pass ${turn.pass.toFixed(3)}</div>
    <div>
      this turn: ${name(turn.action)}${turn.resolved ? '' : ' (unresolved)'} · <span class="regret">regret ${turn.regret.toFixed(3)}</span>
    </div>
  </div>`;
}
