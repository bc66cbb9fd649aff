import { SESSION_STATES, STATE_WORDS, type SessionState } from '../../run-store/session-states.js';
import type { LiveCounts } from '../run-index.js';
import { html, usd, type Html } from './markup.js';

/** The element that holds a state's count ('in flight' → 'in-flight'). */
const fieldOf = (state: SessionState) => state.replace(' ', '-');

/** The live counts as the page shows them, each by the name of the element that holds it. */
export function liveFields(live: LiveCounts): Record<string, string> {
  return {
    ...Object.fromEntries(SESSION_STATES.map((state) => [fieldOf(state), String(live.states[state])])),
    finished: `${live.states.finished}/${live.total}`,
    spend:
      live.runCap === null
        ? `${usd(live.costUsd)} (no run cap)`
        : `${usd(live.costUsd)} of ${usd(live.runCap)} (${((100 * live.costUsd) / live.runCap).toFixed(1)}%)`,
    throttled: String(live.throttled),
    limits:
      live.providers
        .map((p) => `${p.provider} ${p.limit}/${p.ceiling} (${p.cuts} cuts${p.workers > 1 ? `, ${p.workers} workers` : ''})`)
        .join('; ') || 'not adapted',
    at: live.at.slice(11, 19),
    reading: live.failure
      ? `cannot read the run: ${live.failure}`
      : live.read < live.total
        ? `reading summaries: ${live.read}/${live.total}`
        : '',
  };
}

/** The counts a sweep moves, refreshed in place by the page's script from `source` (the run's live JSON). */
export function livePanel(live: LiveCounts, source: string): Html {
  const fields = liveFields(live);
  const field = (name: string) => html`<b data-field="${name}">${fields[name]}</b>`;
  const done = live.total === 0 ? 0 : (100 * live.states.finished) / live.total;
  return html`<section class="live" data-live="${source}">
    <div class="counts">
      ${SESSION_STATES.map((state) => html`<span class="count">${field(fieldOf(state))} ${STATE_WORDS[state]}</span>`)}
    </div>
    <div class="bar"><div data-bar style="width:${done.toFixed(1)}%"></div></div>
    <div class="counts">
      <span class="count">spend ${field('spend')}</span>
      <span class="count">calls throttled ${field('throttled')}</span>
      <span class="count">calls at once (adaptive) ${field('limits')}</span>
      <span class="count muted">read at <span data-field="at">${fields.at}</span></span>
      <span class="count failure" data-field="reading">${fields.reading}</span>
    </div>
  </section>`;
}
