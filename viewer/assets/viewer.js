// allocbench view: the pages' few behaviours — live counts, sortable and filterable tables, policy/optimal filled in beside
// the decision turns once computed. Plain script, no build step; every page works without it, less the live parts.
'use strict';

const POLL_MS = 2000;

/** A number in a cell ("12", "45.0%", "$0.0100", "3/8" counts its first part), or NaN for text. */
function numberOf(text) {
  const match = /^[$]?(-?\d+(?:\.\d+)?)(?:%|\/\d+)?$/.exec(text.trim());
  return match ? Number(match[1]) : NaN;
}

function sortBy(table, column, descending) {
  const body = table.tBodies[0];
  if (!body) return;
  const rows = [...body.rows];
  const key = (row) => row.cells[column]?.textContent ?? '';
  const numeric = rows.every((row) => !Number.isNaN(numberOf(key(row))) || key(row).trim() === '–');
  rows.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const order = numeric ? (numberOf(x) || 0) - (numberOf(y) || 0) : x.localeCompare(y, undefined, { numeric: true });
    return descending ? -order : order;
  });
  for (const row of rows) body.appendChild(row);
}

function makeSortable(table) {
  [...(table.tHead?.rows[0]?.cells ?? [])].forEach((heading, column) => {
    heading.classList.add('sort');
    heading.title = 'sort by this column';
    heading.addEventListener('click', () => {
      const descending = heading.dataset.order === 'ascending';
      for (const other of heading.parentElement.cells) delete other.dataset.order;
      heading.dataset.order = descending ? 'descending' : 'ascending';
      table.dataset.sortColumn = String(column);
      sortBy(table, column, descending);
    });
  });
}

function applyFilter(table, text) {
  const wanted = text.trim().toLowerCase();
  for (const row of table.tBodies[0]?.rows ?? []) row.hidden = wanted !== '' && !row.textContent.toLowerCase().includes(wanted);
}

/** The cells table's rows again (their metrics move as sessions finish), keeping the sort and the filter. */
async function refreshRows(table) {
  const response = await fetch(table.dataset.fragment);
  if (!response.ok) return;
  table.tBodies[0].innerHTML = await response.text();
  const sorted = table.querySelector('th[data-order]');
  if (sorted) sortBy(table, Number(table.dataset.sortColumn), sorted.dataset.order === 'descending');
  const filter = document.querySelector(`[data-filter="${table.id}"]`);
  if (filter) applyFilter(table, filter.value);
}

function watchLive(panel) {
  let ended = null;
  const tick = async () => {
    if (document.visibilityState === 'visible') {
      try {
        const response = await fetch(panel.dataset.live, { cache: 'no-store' });
        if (response.ok) {
          const live = await response.json();
          for (const [name, text] of Object.entries(live.fields)) {
            const element = panel.querySelector(`[data-field="${name}"]`);
            if (element) element.textContent = text;
          }
          const bar = panel.querySelector('[data-bar]');
          if (bar) bar.style.width = `${live.percent.toFixed(1)}%`;
          if (ended !== null && live.ended !== ended) {
            for (const table of document.querySelectorAll('table[data-fragment]')) await refreshRows(table);
          }
          ended = live.ended;
          panel.classList.remove('stale');
        } else panel.classList.add('stale');
      } catch {
        panel.classList.add('stale');
      }
    }
    setTimeout(tick, POLL_MS);
  };
  tick();
}

/** The runs page while runs can still appear under its locations: reloaded when the catalog it shows changes. */
function followRuns(heading) {
  const tick = async () => {
    if (document.visibilityState === 'visible') {
      try {
        const response = await fetch(heading.dataset.followRuns, { cache: 'no-store' });
        if (response.ok && JSON.stringify(await response.json()) !== heading.dataset.catalog) {
          location.reload();
          return;
        }
      } catch {
        // The viewer is away for now: asked again at the next tick.
      }
    }
    setTimeout(tick, POLL_MS);
  };
  setTimeout(tick, POLL_MS);
}

/**
 * The last page of a session that may still write: what it writes is appended (and its entries still changing, from
 * the first not settled, replaced) without a reload, the facts above kept current, until it has ended.
 */
function followSession(conversation) {
  const first = Number(conversation.dataset.first);
  let settled = Number(conversation.dataset.settled);
  const total = document.querySelector('[data-optimum-total]');
  const askOptimum = total ? optimumAsker(total.dataset.optimumTotal) : () => undefined;
  const tick = async () => {
    let following = true;
    if (document.visibilityState === 'visible') {
      try {
        const response = await fetch(`${conversation.dataset.follow}?from=${settled}`, { cache: 'no-store' });
        if (response.ok) {
          const update = await response.json();
          while (conversation.children.length > Math.max(0, update.from - first)) conversation.lastElementChild.remove();
          conversation.insertAdjacentHTML('beforeend', update.entries.join(''));
          settled = Math.max(first, update.settled);
          for (const facts of document.querySelectorAll('[data-facts]')) facts.innerHTML = update.facts;
          for (const count of document.querySelectorAll('[data-entry-count]')) count.textContent = String(update.count);
          if (update.entries.some((entry) => entry.includes('data-optimum-of'))) askOptimum();
          following = update.following;
        }
      } catch {
        // The viewer is away for now: asked again at the next tick.
      }
    }
    if (following) setTimeout(tick, POLL_MS);
  };
  setTimeout(tick, POLL_MS);
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** policy/optimal's choice beside each decision turn of a session, asked again while its table is being solved. */
async function fillOptimum(source) {
  for (;;) {
    let answer;
    try {
      const response = await fetch(source, { cache: 'no-store' });
      answer = await response.json();
    } catch {
      await pause(POLL_MS);
      continue;
    }
    for (const total of document.querySelectorAll('[data-optimum-total]'))
      if (total.dataset.optimumTotal === source) total.textContent = answer.total ?? '';
    if (answer.state === 'computing') {
      await pause(1000);
      continue;
    }
    for (const aside of document.querySelectorAll('[data-optimum-of]')) {
      if (aside.dataset.optimumOf !== source) continue;
      const body = answer.turns?.[aside.dataset.optimumT];
      if (body) aside.innerHTML = body;
      else aside.textContent = answer.state === 'done' ? '' : (answer.total ?? '');
    }
    return;
  }
}

/** fillOptimum for decision turns that keep coming: one asking at a time, and one more after it if more came meanwhile. */
function optimumAsker(source) {
  let asking = null;
  let again = false;
  const ask = () => {
    if (asking) {
      again = true;
      return;
    }
    asking = fillOptimum(source).finally(() => {
      asking = null;
      if (again) {
        again = false;
        ask();
      }
    });
  };
  return ask;
}

document.addEventListener('DOMContentLoaded', () => {
  for (const table of document.querySelectorAll('table.sortable')) makeSortable(table);
  for (const input of document.querySelectorAll('[data-filter]')) {
    const table = document.getElementById(input.dataset.filter);
    if (table) input.addEventListener('input', () => applyFilter(table, input.value));
  }
  for (const panel of document.querySelectorAll('[data-live]')) watchLive(panel);
  for (const heading of document.querySelectorAll('[data-follow-runs]')) followRuns(heading);
  for (const conversation of document.querySelectorAll('[data-follow]')) followSession(conversation);
  const sources = new Set(
    [...document.querySelectorAll('[data-optimum-of], [data-optimum-total]')].map((e) => e.dataset.optimumOf ?? e.dataset.optimumTotal),
  );
  for (const source of sources) fillOptimum(source);
});
