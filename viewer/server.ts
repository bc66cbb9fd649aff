import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { extname, join, normalize, sep } from 'node:path';
import { Hono, type Context } from 'hono';
import { sessionDirName } from '../core/sweep/session-spec.js';
import { projectRoot } from '../infra/project-root.js';
import type { CellResult } from '../analysis/run-results.js';
import { OptimumJobs } from './optimum-jobs.js';
import { comparePage, type CompareSide } from './pages/compare-page.js';
import { cellRows } from './pages/tables.js';
import { liveFields } from './pages/live-panel.js';
import { html, page } from './pages/markup.js';
import { optimumView } from './pages/entry-view.js';
import { reportPage } from './pages/report-page.js';
import { cellPage, runHref, runPage, runsPage } from './pages/run-pages.js';
import { sessionPage, sessionUpdate } from './pages/session-page.js';
import { ReportBuilds } from './report-builds.js';
import type { RunCatalog } from './run-catalog.js';
import type { IndexedSession, RunIndex } from './run-index.js';
import { SessionReader, type SessionData } from './session-data.js';
import { searchSessions, type SessionFilter } from './session-search.js';
import { temporalUiFor, workflowLink, type TemporalUi } from './temporal-ui.js';
import { isMeasured } from '../run-store/session-states.js';

export interface ViewerOptions {
  readonly catalog: RunCatalog;
  /** The Temporal Web UI sessions link to (--temporal-ui); else the embedded server running a run, if any. */
  readonly temporalUi: TemporalUi | null;
  /** Where reports are built (the online optimum's cache directory). */
  readonly cacheDir: string;
}

const ASSETS = join(projectRoot(), 'viewer', 'assets');
const HIGHLIGHT_CSS = createRequire(import.meta.url).resolve('highlight.js/styles/github.css');
const TYPES: Record<string, string> = {
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.html': 'text/html',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.tex': 'text/plain',
};
const typeOf = (path: string) => `${TYPES[extname(path)] ?? 'application/octet-stream'}; charset=utf-8`;

/** The turns policy/optimal is shown beside: those decided (a turn the session never reached is not). */
const decisionTurnsOf = (data: SessionData) => new Set(data.decisions.filter((d) => d.failure !== 'truncated').map((d) => d.t));

const notFound = (c: Context, what: string) =>
  c.html(
    page(
      'not found',
      [],
      html`<h1>Not found</h1>
        <p>${what}</p>`,
    ),
    404,
  );

/** The viewer's web app: every page and the JSON the pages poll, read-only over the catalog's runs. */
export function viewerApp(options: ViewerOptions): { app: Hono; close: () => Promise<void> } {
  const { catalog } = options;
  const jobs = new OptimumJobs();
  const reports = new ReportBuilds(options.cacheDir);
  const sessions = new SessionReader();
  const app = new Hono();
  /** policy/optimal's nets for the online columns, asked again when more sessions finish (one job per run at a time). */
  const nets = new Map<string, { finished: number; latest: Map<string, number> | null; note: string }>();

  const runOf = async (c: Context): Promise<{ id: string; index: RunIndex } | undefined> => {
    const id = c.req.param('run') ?? '';
    // A run that appeared since the catalog last looked is found by a look now.
    const index = catalog.get(id) ?? (await catalog.refresh().then(() => catalog.get(id)));
    if (!index) return undefined;
    // Pages show what the index holds now; a pass under way goes on behind them.
    void index.refresh();
    return { id, index };
  };

  const onlineOf = (index: RunIndex): { optima: Map<string, number> | null; note: string } => {
    const scored = index.sessions.flatMap((s) => (s.summary && isMeasured(s.summary) && s.spec.rung !== 'R3' ? [s.summary] : []));
    const known = nets.get(index.location) ?? { finished: -1, latest: null, note: '' };
    const outcome = jobs.nets(`${index.location}\n${scored.length}`, {
      kind: 'nets',
      location: index.location,
      summaries: scored.map(({ sessionKey, spec, termination }) => ({ sessionKey, spec, termination })),
    });
    if (outcome.state === 'done') nets.set(index.location, { finished: scored.length, latest: outcome.value, note: '' });
    else if (outcome.state === 'failed')
      nets.set(index.location, { ...known, note: `The online columns are out of reach: ${outcome.error}.` });
    const now = nets.get(index.location) ?? known;
    const pending =
      outcome.state === 'computing'
        ? " The online columns wait for policy/optimal's nets (solving its table takes up to minutes, once per setting)."
        : '';
    return { optima: now.latest, note: `${now.note}${pending}` };
  };

  const cellsOf = (index: RunIndex): { cells: CellResult[]; note: string } => {
    const { optima, note } = onlineOf(index);
    return { cells: index.cells(optima), note };
  };

  const peersOf = (index: RunIndex, session: IndexedSession) =>
    [...catalog.runs].flatMap(([id, run]) =>
      run.sessions
        .filter((s) => s.spec.seed === session.spec.seed && !(run === index && s.folder === session.folder) && s.state !== 'waiting')
        .slice(0, 24)
        .map((s) => ({
          href: `/compare?a=${encodeURIComponent(`${catalog.idOf(index)}/${session.folder}`)}&b=${encodeURIComponent(`${id}/${s.folder}`)}`,
          label: `${run === index ? '' : `${run.name}: `}${s.spec.model} ${s.spec.rung}${s.spec.reskin ? ` ${s.spec.reskin}` : ''}`,
        })),
    );

  app.get('/assets/:file', async (c) => {
    const file = c.req.param('file');
    const path = file === 'highlight.css' ? HIGHLIGHT_CSS : ['viewer.css', 'viewer.js'].includes(file) ? join(ASSETS, file) : null;
    if (!path) return notFound(c, file);
    return c.body(await readFile(path, 'utf8'), 200, { 'content-type': typeOf(path), 'cache-control': 'no-cache' });
  });

  // Browsers ask for it on every page; the viewer has none.
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.get('/', async (c) => {
    await catalog.refresh();
    const runs = await Promise.all(
      [...catalog.runs].map(async ([id, index]) => {
        void index.refresh();
        return { id, index, live: await index.live() };
      }),
    );
    return c.html(runsPage(runs, catalog));
  });

  app.get('/api/runs', async (c) => {
    await catalog.refresh();
    return c.json(catalog.describe());
  });

  app.get('/api/runs/:run/live', async (c) => {
    const run = await runOf(c);
    if (!run) return c.json({ error: 'no such run' }, 404);
    const live = await run.index.live();
    const ended = live.states.finished + live.states.stopped + live.states.cancelled + live.states.failed;
    return c.json({ ...live, ended, fields: liveFields(live), percent: live.total === 0 ? 0 : (100 * live.states.finished) / live.total });
  });

  app.get('/runs/:run', async (c) => {
    const run = await runOf(c);
    if (!run) return notFound(c, `no run named ${c.req.param('run')}`);
    const params = c.req.query();
    const seed = params.seed && /^\d+$/.test(params.seed.trim()) ? Number(params.seed) : undefined;
    const filter: SessionFilter = {
      ...(params.model && { model: params.model }),
      ...(params.rung && { rung: params.rung }),
      ...(seed !== undefined && { seed }),
      ...(params.state && { state: params.state }),
      ...(params.termination && { termination: params.termination }),
      ...(params.unresolved && { unresolved: true }),
      ...(params.text && { text: params.text }),
    };
    const { cells, note } = cellsOf(run.index);
    return c.html(
      runPage({
        id: run.id,
        index: run.index,
        live: await run.index.live(),
        cells,
        onlineNote: note,
        filter,
        found: await searchSessions(run.index, filter),
        page: Math.max(1, Number(params.page) || 1),
        params,
      }),
    );
  });

  app.get('/runs/:run/cells-rows', async (c) => {
    const run = await runOf(c);
    if (!run) return notFound(c, 'no such run');
    return c.html(cellRows(runHref(run.id), cellsOf(run.index).cells).text);
  });

  app.get('/runs/:run/cells/:cell', async (c) => {
    const run = await runOf(c);
    const cellIndex = Number(c.req.param('cell'));
    const cell = run && cellsOf(run.index).cells[cellIndex];
    if (!run || !cell) return notFound(c, `no cell ${c.req.param('cell')}`);
    return c.html(cellPage(run.id, run.index, cellIndex, cell));
  });

  app.get('/runs/:run/sessions/:folder', async (c) => {
    const run = await runOf(c);
    const session = run?.index.session(c.req.param('folder'));
    if (!run || !session) return notFound(c, `no session ${c.req.param('folder')}`);
    const data = await sessions.read(run.index, session);
    return c.html(
      sessionPage({
        id: run.id,
        index: run.index,
        session,
        ...data,
        decisionTurns: decisionTurnsOf(data),
        workflow: workflowLink(temporalUiFor(run.index.store, options.temporalUi), run.index.manifest, session.spec),
        peers: peersOf(run.index, session),
        page: Math.max(1, Number(c.req.query('page')) || 1),
      }),
    );
  });

  // What the page of a session that may still write polls: what it wrote since `from` (the entries the page holds as settled).
  app.get('/api/runs/:run/sessions/:folder/live', async (c) => {
    const run = await runOf(c);
    const session = run?.index.session(c.req.param('folder'));
    if (!run || !session) return c.json({ error: 'no such session' }, 404);
    const data = await sessions.read(run.index, session);
    const from = Math.max(0, Number(c.req.query('from')) || 0);
    return c.json(sessionUpdate({ id: run.id, session, ...data, decisionTurns: decisionTurnsOf(data) }, from));
  });

  app.get('/api/runs/:run/sessions/:folder/optimum', async (c) => {
    const run = await runOf(c);
    const session = run?.index.session(c.req.param('folder'));
    if (!run || !session) return c.json({ error: 'no such session' }, 404);
    const data = await sessions.read(run.index, session);
    const decided = data.decisions.filter((d) => d.failure !== 'truncated');
    if (!data.classes || decided.length === 0)
      return c.json({
        state: 'none',
        total: data.problem ? `policy/optimal: not computed (${data.problem})` : 'policy/optimal: no decision turn yet',
      });
    const outcome = jobs.turns(`${run.index.location}\n${session.folder}\n${data.decisions.length}\n${data.summary?.finishedAt ?? ''}`, {
      kind: 'turns',
      classes: data.classes,
      setting: session.spec,
      decisions: data.decisions,
    });
    if (outcome.state === 'computing')
      return c.json({ state: 'computing', total: 'policy/optimal: solving its table for this setting (up to minutes, once per setting)…' });
    if (outcome.state === 'failed') return c.json({ state: 'failed', total: `policy/optimal: not computed (${outcome.error})` });
    const turns = outcome.value;
    const regret = turns.reduce((sum, turn) => sum + turn.regret, 0);
    const differs = turns.filter((turn) => turn.action !== turn.optimum).length;
    return c.json({
      state: 'done',
      total: `policy/optimal beside ${turns.length} decision turns: ${differs} decided otherwise; regret summed over the turns ${regret.toFixed(3)} (expected net given up, each turn in its own state).`,
      turns: Object.fromEntries(turns.map((turn) => [turn.t, optimumView(turn).text])),
    });
  });

  app.get('/compare', async (c) => {
    const sideOf = async (param: string): Promise<CompareSide | string> => {
      const value = c.req.query(param) ?? '';
      const slash = value.lastIndexOf('/');
      const index = catalog.get(value.slice(0, slash));
      const session = index?.session(value.slice(slash + 1));
      if (!index || !session) return `no session '${value}'`;
      const data = await sessions.read(index, session);
      const href = `${runHref(catalog.idOf(index))}/sessions/${encodeURIComponent(sessionDirName(session.spec))}`;
      return {
        runName: index.name,
        href,
        session,
        conversation: data.conversation,
        ...((data.unreadable ?? data.problem) && { problem: data.unreadable ?? data.problem }),
        context: {
          optimum: `/api${href}/optimum`,
          optimumAt: decisionTurnsOf(data),
          credited: data.credited,
          ended: data.conversation?.entries.some((e) => e.kind === 'end') ?? false,
        },
      };
    };
    const [a, b] = [await sideOf('a'), await sideOf('b')];
    if (typeof a === 'string' || typeof b === 'string') return notFound(c, [a, b].filter((s) => typeof s === 'string').join('; '));
    return c.html(comparePage(a, b, Number(c.req.query('page')) || 1, { a: c.req.query('a') ?? '', b: c.req.query('b') ?? '' }));
  });

  app.post('/runs/:run/report/build', async (c) => {
    const run = await runOf(c);
    if (!run) return notFound(c, 'no such run');
    reports.build(run.index.location);
    return c.redirect(`${runHref(run.id)}/report/`, 303);
  });

  app.get('/runs/:run/report/*', async (c) => {
    const run = await runOf(c);
    if (!run) return notFound(c, 'no such run');
    const state = reports.state(run.index.location);
    const rest = decodeURIComponent(c.req.path.slice(`${runHref(run.id)}/report/`.length)) || 'index.html';
    if (state.state !== 'built') return c.html(reportPage(run.id, run.index, state));
    const path = normalize(join(state.dir, rest));
    if (!path.startsWith(state.dir + sep)) return notFound(c, rest);
    const text = await readFile(path).catch(() => undefined);
    if (!text) return notFound(c, rest);
    if (rest === 'index.html') return c.html(reportPage(run.id, run.index, state, text.toString('utf8')));
    return c.body(text, 200, { 'content-type': typeOf(path) });
  });

  app.onError((error, c) =>
    c.html(
      page(
        'error',
        [],
        html`<h1>Error</h1>
          <p>${error.message.split('\n')[0]}</p>`,
      ),
      500,
    ),
  );

  return { app, close: () => jobs.close() };
}
