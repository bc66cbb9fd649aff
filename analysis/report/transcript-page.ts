import type { ModelReply } from '../../core/chat/messages.js';
import type { TranscriptRecord } from '../../run-store/transcript.js';
import { escapeHtml, page } from './html.js';
import { runClocks } from '../number-format.js';

const block = (label: string, text: string, cls = '') => `<p class="${cls}"><b>${escapeHtml(label)}</b></p><pre>${escapeHtml(text)}</pre>`;

/** A turn's heading, user message, reply text and tool calls: what the decision and script turns share. */
const exchange = (t: number, user: string, reply: ModelReply) =>
  `<h3>Turn ${t}</h3>${block('User', user)}${block('Model', reply.text || '(no text)')}${reply.toolCalls.map((call) => block(`Tool call ${call.name}`, call.arguments, 'tool')).join('')}`;

function describe(record: TranscriptRecord): string {
  switch (record.type) {
    case 'session':
      // A split agent's planner makes the turns, its builder the calls.
      return `<h2>Session</h2>${
        record.planner
          ? `${block("Planner's system prompt", record.planner.system)}${block("Planner's tools", JSON.stringify(record.planner.tools, null, 2))}`
          : ''
      }${block(record.planner ? "Builder's system prompt" : 'System prompt', record.system)}${block(record.planner ? "Builder's tools" : 'Tools', JSON.stringify(record.tools, null, 2))}`;
    case 'turn':
      return `<div class="turn">${exchange(record.t, record.user, record.reply)}${record.toolResults.map((result) => block('Tool result', result.content, 'tool')).join('')}${
        record.decision.resolved
          ? `<p>Decision: <b>${record.decision.action}</b></p>`
          : `<p class="failure">Unresolved: ${escapeHtml(record.decision.failure ?? '')} ${escapeHtml(record.detail ?? '')}</p>`
      }</div>`;
    case 'loop-step':
      return `<div class="turn">${exchange(record.call, record.user ?? '(tool results only)', record.reply).replace('<h3>Turn', '<h3>Call')}<p>Problem ${record.t}: ${record.outcomes
        .map((outcome) => escapeHtml(`${outcome.kind}${'name' in outcome ? ` ${outcome.name}` : ''}`))
        .join(
          ', ',
        )}${record.submitted ? ` — submitted ${escapeHtml(record.submitted.value)} (${record.submitted.correct ? 'correct' : 'wrong'})` : ''}${
        record.advanced === 'forced' ? ' — given up after two replies without a tool call' : ''
      }</p></div>`;
    case 'execution':
      return `<p class="tool">Script ${escapeHtml(record.name)} on problem ${record.t}: ${
        record.outcome.ok
          ? `returned ${escapeHtml(JSON.stringify(record.outcome.value))}`
          : `${escapeHtml(record.outcome.kind)}: ${escapeHtml(record.outcome.error)}`
      } in ${runClocks(record.outcome)} — ${record.correct ? 'correct' : 'not the gold answer'}</p>`;
    case 'attempt':
      return record.outcome === 'ok'
        ? ''
        : `<p class="failure">${record.role === 'builder' ? 'Call' : 'Turn'} ${record.t}${record.role ? ` (${record.role})` : ''}, attempt ${record.attempt}: ${record.outcome}${record.error ? ` (${escapeHtml(record.error)})` : ''}</p>`;
    case 'execution-start':
      return '';
    case 'resume':
      return `<p class="failure">Replacement run after ${record.after}</p>`;
    case 'message':
      return `<div class="turn"><p><b>${escapeHtml(record.role)}</b> (problem ${record.t})</p><pre>${escapeHtml(record.text || '(no text)')}</pre>${(record.toolCalls ?? []).map((call) => block(`Tool call ${call.name}`, call.arguments, 'tool')).join('')}</div>`;
    case 'cancelled':
      return '<p class="failure">Cancelled here (a rerun of the sweep goes on from this point)</p>';
    case 'end':
      return `<h2>Ended: ${escapeHtml(record.termination)}</h2>`;
  }
}

/** A session's transcript as a readable page: prompts, replies, tool calls and results, failed attempts, script runs. */
export function transcriptPage(title: string, records: readonly TranscriptRecord[]): string {
  return page(title, `<p><a href="../index.html">← report</a></p><h1>${escapeHtml(title)}</h1>\n${records.map(describe).join('\n')}`);
}
