import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../bench/synthetic-runs.js';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { sessionDirName, sessionKey, type SessionSpec } from '../../core/sweep/session-spec.js';
import { parseSweepConfig, type SweepConfig } from '../../core/sweep/sweep-config.js';
import { launchHeadlessChromium } from '../../infra/headless-chromium.js';
import { runLayout } from '../../run-store/run-layout.js';
import { turnOptima } from '../../viewer/turn-optimum.js';
import { sweepWorkflowId } from '../../workflows/workflow-ids.js';
import { serverForThisFile, summaryOf, sweepOn } from '../temporal/harness.js';
import { gate, startLoopback } from '../activities/providers/loopback.js';
import { chatCompletion } from '../activities/providers/wire.js';
import { cliPath } from '../../infra/project-root.js';

/** Debian's chromium (installed by .ci/run); CI sets ALLOCBENCH_REQUIRE_BROWSER so these cannot skip there. */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const required = process.env.ALLOCBENCH_REQUIRE_BROWSER === '1';
const CLI = cliPath();
const UI = 'http://127.0.0.1:18233';

const temporal = serverForThisFile();
const dir = mkdtempSync(join(tmpdir(), 'allocbench-view-browser-'));
const finished = join(dir, 'finished');
const damaged = join(dir, 'damaged');

/** Two models at R0 and R3 on two short streams; the eager agent's turn 2 fails twice before it answers. */
const config: SweepConfig = parseSweepConfig({
  name: 'viewed',
  models: ['policy/eager?transport=2x2', 'policy/commit-at-2'],
  rungs: ['R0', 'R3'],
  seeds: [2000, 2001],
  stream: { length: 12 },
  window: 4,
});
const specs = expandSweep(config);
const spec = (model: string, rung: string, seed: number) =>
  specs.find((s) => s.model.startsWith(model) && s.rung === rung && s.seed === seed) as SessionSpec;

/** `allocbench view` as users start it (the built CLI), on a free port; resolves with its address once it serves. */
async function startView(args: readonly string[]): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', CLI, 'view', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /at (http:\/\/\S+)/.exec(output);
      if (found) resolve(found[1] as string);
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`allocbench view exited with ${code}: ${output}`)));
  });
  return { url, process: child };
}

let browser: Browser | undefined;
const viewers: ChildProcess[] = [];
const loopbacks: { close: () => Promise<void> }[] = [];
let viewer = '';

async function open(path: string): Promise<Page> {
  const page = await (browser as Browser).newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${viewer}${path}`);
  expect(errors).toEqual([]);
  return page;
}

const sessionPath = (s: SessionSpec) => `/runs/viewed/sessions/${sessionDirName(s)}`;

describe.skipIf(!CHROMIUM && !required)('allocbench view in a real browser', () => {
  beforeAll(async () => {
    expect(CHROMIUM, 'Debian chromium is not installed').toBeDefined();
    await sweepOn(temporal.server, config, finished);
    // The same run, damaged as a crash or a writer caught mid-line leaves one.
    cpSync(finished, damaged, { recursive: true });
    writeFileSync(
      runLayout.manifest(damaged),
      readFileSync(runLayout.manifest(finished), 'utf8').replace('"name": "viewed"', '"name": "damaged"'),
    );
    appendFileSync(runLayout.transcript(damaged, spec('policy/commit-at-2', 'R0', 2000)), '{"type":"turn","at":"2026-');
    rmSync(runLayout.summary(damaged, spec('policy/commit-at-2', 'R0', 2001)));
    writeFileSync(runLayout.summary(damaged, spec('policy/eager', 'R0', 2001)), '{"sessionKey": "cut sh');
    browser = await launchHeadlessChromium(CHROMIUM as string);
    const started = await startView([finished, damaged, '--temporal-ui', UI, '--temporal-namespace', temporal.server.namespace]);
    viewers.push(started.process);
    viewer = started.url;
  });

  afterAll(async () => {
    await browser?.close();
    for (const child of viewers) child.kill('SIGTERM');
    for (const loopback of loopbacks) await loopback.close();
  });

  it('opens a finished run: its cells with the CLI metrics, sortable and filterable, and its sessions', async () => {
    const page = await open('/runs/viewed');
    await page.getByText('8/8').first().waitFor();
    const models = () => page.locator('#cells tbody tr td:first-child').allTextContents();
    expect(await models()).toHaveLength(4);
    await page.locator('#cells th', { hasText: 'commits/seed' }).click();
    const ascending = await page.locator('#cells tbody tr td:nth-child(14)').allTextContents();
    expect(ascending.map(Number)).toEqual([...ascending.map(Number)].sort((a, b) => a - b));
    await page.fill('[data-filter="cells"]', 'commit-at-2');
    expect(await page.locator('#cells tbody tr:visible').count()).toBe(2);
    // A search on the index's fields: one model, one seed.
    await page.goto(`${viewer}/runs/viewed?model=eager&seed=2001`);
    expect(await page.locator('table.sessions tbody tr').count()).toBe(2);
    // The report's own page, built by analyze, reached from the viewer.
    await page.goto(`${viewer}/runs/viewed/report/`);
    await page.getByRole('button', { name: 'build the report' }).click();
    await page.locator('#figure-optimal-policy img').waitFor({ timeout: 120_000 });
    expect(await page.locator('table').count()).toBeGreaterThan(2);
    await page.close();
  });

  it('opens a session: finds the retried turn with each attempt, its wait and outcome in place', async () => {
    const page = await open(sessionPath(spec('policy/eager', 'R0', 2000)));
    const retriedTurn = page.locator('article.entry.is-retried');
    expect(await retriedTurn.count()).toBe(1);
    await expect(retriedTurn.locator('header').textContent()).resolves.toMatch(/Turn 2[\s\S]*retried · 3 attempts/);
    const rows = retriedTurn.locator('details.attempts tbody tr');
    expect(await rows.allTextContents()).toHaveLength(3);
    expect(await rows.nth(0).textContent()).toMatch(/transport-error[\s\S]*1\.5 s/);
    expect(await rows.nth(1).textContent()).toMatch(/transport-error[\s\S]*3 s/);
    expect(await rows.nth(2).textContent()).toMatch(/ok\s+end/);
    // The system prompt is folded away until asked for.
    expect(await page.locator('details.prologue pre').first().isVisible()).toBe(false);
    await page.locator('details.prologue summary', { hasText: 'system prompt' }).click();
    expect(await page.locator('details.prologue pre').first().isVisible()).toBe(true);
    // The session's workflow in the Temporal Web UI: the link names a workflow the server ran.
    const href = (await page.getByText('workflow in the Temporal Web UI').getAttribute('href')) as string;
    const id = `${sweepWorkflowId(config)}/${sessionKey(spec('policy/eager', 'R0', 2000))}`;
    expect(href).toBe(`${UI}/namespaces/${temporal.server.namespace}/workflows/${encodeURIComponent(id)}`);
    const connection = await Connection.connect({ address: temporal.server.address });
    const described = await new Client({ connection, namespace: temporal.server.namespace }).workflow.getHandle(id).describe();
    await connection.close();
    expect(described.status.name).toBe('COMPLETED');
    await page.close();
  });

  it("shows policy/optimal's choice and the regret beside a decision turn, as the optimum's table gives them", async () => {
    const session = spec('policy/commit-at-2', 'R0', 2001);
    const page = await open(sessionPath(session));
    const aside = page.locator('aside[data-optimum-t="1"]');
    await aside.getByText('regret').waitFor({ timeout: 120_000 });
    const stream = generateStream(session.seed, session.stream);
    const classes = stream.items.map((item) => FAMILY_NAMES.indexOf(item.family));
    const [expected] = turnOptima(classes, session, (await summaryOf(finished, session)).decisions);
    const text = (await aside.textContent()) as string;
    expect(text).toContain(`policy/optimal: ${expected?.optimum === 'commit' ? 'build' : 'pass'}`);
    expect(text).toContain(`regret ${expected?.regret.toFixed(3)}`);
    expect(text).toContain(`pass ${expected?.pass.toFixed(3)}`);
    await expect(page.locator('[data-optimum-total]').textContent()).resolves.toMatch(/policy\/optimal beside \d+ decision turns/);
    await page.close();
  });

  it('compares two sessions side by side, aligned by stream position (R0 beside R3 on one seed)', async () => {
    const page = await open(sessionPath(spec('policy/commit-at-2', 'R0', 2000)));
    await page
      .locator('.compare-with a', { hasText: /commit-at-2 R3$/ })
      .first()
      .click();
    await page.waitForURL(/\/compare\?/);
    const headings = await page.locator('table.compare thead th').allTextContents();
    expect(headings[1]).toMatch(/policy\/commit-at-2 · R0 ball · seed\s+2000/);
    expect(headings[2]).toMatch(/policy\/commit-at-2 · R3 · seed\s+2000/);
    const first = page.locator('table.compare tbody tr#t-1');
    await expect(first.locator(':scope > td').nth(0).textContent()).resolves.toMatch(/Turn 1/);
    await expect(first.locator(':scope > td').nth(1).textContent()).resolves.toMatch(/Call 1 · problem 1/);
    await page.close();
  });

  it('shows a torn transcript line, a missing summary and an unreadable one as such, and the rest of the run as usual', async () => {
    const run = await open('/runs/damaged');
    const row = (s: SessionSpec) => run.locator(`table.sessions tr:has(a[href$="${sessionDirName(s)}"])`).first();
    await expect(row(spec('policy/eager', 'R0', 2001)).textContent()).resolves.toMatch(/unreadable/);
    await expect(row(spec('policy/commit-at-2', 'R0', 2001)).textContent()).resolves.toMatch(/in flight/);
    await expect(row(spec('policy/eager', 'R0', 2000)).textContent()).resolves.toMatch(/finished/);
    const torn = await open(`/runs/damaged/sessions/${sessionDirName(spec('policy/commit-at-2', 'R0', 2000))}`);
    await expect(torn.locator('.notice').first().textContent()).resolves.toMatch(/line \d+ was cut short/);
    expect(await torn.locator('article.entry.turn').count()).toBeGreaterThan(3);
    const unreadable = await open(`/runs/damaged/sessions/${sessionDirName(spec('policy/eager', 'R0', 2001))}`);
    await expect(unreadable.locator('.notice.failure').first().textContent()).resolves.toMatch(
      /Summary unreadable: .*summary\.json: not valid JSON/,
    );
    expect(await unreadable.locator('article.entry.turn').count()).toBeGreaterThan(0);
    for (const page of [run, torn, unreadable]) await page.close();
  });

  it('shows a location waited for on the runs page, and the run in its place once one is made there', async () => {
    const later = join(dir, 'later');
    const started = await startView([later]);
    viewers.push(started.process);
    const page = await (browser as Browser).newPage();
    await page.goto(started.url);
    await page.getByText(`${later}: no run there yet; waiting for it`).waitFor();
    writeSyntheticRun(later, { name: 'later', models: ['policy/eager'], rungs: ['R0'], seeds: [2000], stream: { length: 12 } });
    await page.locator('a[href="/runs/later"]').waitFor({ timeout: 120_000 });
    expect(await page.getByText('no run there yet').count()).toBe(0);
    await page.close();
  });

  it('follows a session in flight: its turns are appended without a reload, each with its optimum, and it ends showing how', async () => {
    const followed = join(dir, 'followed');
    // A local model that passes every decision: the first two replies at once, the rest once the page has counted its turns,
    // so the session is still in flight when the page loads however slow the machine.
    const rest = gate();
    const model = await startLoopback((request, index) =>
      request.path.endsWith('/models')
        ? { json: { object: 'list', data: [] } }
        : { json: chatCompletion({ content: 'DECISION: PASS' }, {}, 'followed'), ...(index > 2 && { after: rest.opened }) },
    );
    loopbacks.push(model);
    const slow = parseSweepConfig({
      name: 'followed',
      models: [`openai-compatible/followed@${model.url}/v1`],
      rungs: ['R0'],
      seeds: [2000],
      stream: { length: 12 },
    });
    const [session] = expandSweep(slow) as [SessionSpec];
    const sweep = sweepOn(temporal.server, slow, followed);
    while (!existsSync(runLayout.transcript(followed, session))) await new Promise((resolve) => setTimeout(resolve, 100));
    const started = await startView([followed]);
    viewers.push(started.process);
    const page = await (browser as Browser).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${started.url}/runs/followed/sessions/${sessionDirName(session)}`);
    await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));
    const turns = () => page.locator('article.entry.turn').count();
    const first = await turns();
    rest.open();
    await page.waitForFunction((before) => document.querySelectorAll('article.entry.turn').length > before, first, { timeout: 120_000 });
    await sweep;
    await page.locator('[data-facts]', { hasText: /finished\s+· termination stream-end/ }).waitFor({ timeout: 120_000 });
    await page.getByText('Ended: stream-end').waitFor();
    const decided = (await summaryOf(followed, session)).decisions.length;
    expect(await turns()).toBe(decided);
    expect(await page.locator('[data-entry-count]').textContent()).toBe(String(await page.locator('.conversation > *').count()));
    await page.waitForFunction(
      (count) =>
        Array.from(document.querySelectorAll('aside.optimum')).filter((aside) => aside.textContent?.includes('regret')).length === count,
      decided,
      { timeout: 120_000 },
    );
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("watches a running sweep's counts advance without a reload", async () => {
    const live = join(dir, 'live');
    const slow = parseSweepConfig({
      name: 'live',
      models: ['policy/commit-at-2?delay=300'],
      rungs: ['R0'],
      seeds: '2000-2005',
      stream: { length: 12 },
      window: 2,
    });
    const sweep = sweepOn(temporal.server, slow, live);
    while (!existsSync(runLayout.manifest(live))) await new Promise((resolve) => setTimeout(resolve, 100));
    const started = await startView([live]);
    viewers.push(started.process);
    const page = await (browser as Browser).newPage();
    await page.goto(`${started.url}/runs/live`);
    await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));
    const finishedCount = async () => Number(((await page.locator('[data-field="finished"]').textContent()) ?? '').split('/')[0]);
    const first = await finishedCount();
    expect(first).toBeLessThan(6);
    await page.waitForFunction(
      (before) => Number(document.querySelector('[data-field="finished"]')?.textContent?.split('/')[0]) > before,
      first,
      { timeout: 120_000 },
    );
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
    await sweep;
    await page.waitForFunction(() => document.querySelector('[data-field="finished"]')?.textContent === '6/6', undefined, {
      timeout: 30_000,
    });
    expect(await page.locator('[data-field="waiting"]').textContent()).toBe('0');
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
    await page.close();
  });
});
