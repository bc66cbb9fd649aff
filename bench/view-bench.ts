/*
 * Viewer speed and memory (`allocbench view`, docs/viewer.md): a synthetic run
 * of 10,000 sessions opened (index built from the summaries, the run page
 * served), and one R3 session of about 500 model calls and 300k tokens
 * rendered, then followed in flight as its page's script follows it. Targets:
 * each under 2 s; the server holds no transcript and no per-turn decisions of
 * the run. With Debian's chromium present, the pages are also timed in a real
 * browser, load to last paint.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sessionDirName } from '../core/sweep/session-spec.js';
import { openRunStore } from '../run-store/open-run-store.js';
import { runLayout } from '../run-store/run-layout.js';
import { startViewer } from '../viewer/start-viewer.js';
import { launchHeadlessChromium } from '../infra/headless-chromium.js';
import { writeSyntheticRun } from './synthetic-runs.js';
import { writeLongLoopTranscript } from './synthetic-transcripts.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-view-bench-'));
process.env.ALLOCBENCH_CACHE_DIR = join(dir, 'cache');
const big = join(dir, 'big');
const written = performance.now();
const specs = writeSyntheticRun(big, {
  name: 'big',
  models: ['policy/eager', 'policy/commit-at-2', 'policy/commit-at-3', 'policy/bayes', 'policy/bayes-0.5'],
  rungs: ['R0', 'probe', 'R1', 'R2'],
  announceN: [true],
  seeds: '2000-2499',
});
const writeSeconds = (performance.now() - written) / 1000;

const long = join(dir, 'long');
const [r3] = writeSyntheticRun(long, { name: 'long', models: ['policy/commit-at-2'], rungs: ['R3'], seeds: [2000] });
const calls = await writeLongLoopTranscript(openRunStore(long), r3!, 500);
// The same session in flight (no summary): a page follows it, each read reading only what was appended since.
const followed = join(dir, 'followed');
writeSyntheticRun(followed, { name: 'followed', models: ['policy/commit-at-2'], rungs: ['R3'], seeds: [2000] });
rmSync(runLayout.summary(followed, r3!));
await writeLongLoopTranscript(openRunStore(followed), r3!, 500);

async function bytesUnder(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

async function timed(url: string): Promise<{ seconds: number; bytes: number; text: string }> {
  const started = performance.now();
  const response = await fetch(url);
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text.slice(0, 200)}`);
  return { seconds: (performance.now() - started) / 1000, bytes: Buffer.byteLength(text), text };
}

const heapBefore = process.memoryUsage().heapUsed;
const opened = performance.now();
const viewer = await startViewer({
  locations: [big, long, followed],
  host: '127.0.0.1',
  port: 0,
  temporalUi: null,
  cacheDir: join(dir, 'cache'),
});
const indexSeconds = (performance.now() - opened) / 1000;
const runPage = await timed(`${viewer.url}/runs/big`);
const openSeconds = (performance.now() - opened) / 1000;
// The index's first pass goes on behind the first page: wait for it, then weigh what it holds.
for (;;) {
  const live = (await (await fetch(`${viewer.url}/api/runs/big/live`)).json()) as { read: number; total: number };
  if (live.read === live.total) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const indexedSeconds = (performance.now() - opened) / 1000;
const heapAfter = process.memoryUsage().heapUsed;
const sessionUrl = `${viewer.url}/runs/long/sessions/${sessionDirName(r3!)}`;
const sessionPage = await timed(sessionUrl);
const lastPage = await timed(`${sessionUrl}?page=10`);
const filtered = await timed(`${viewer.url}/runs/big?rung=R2&seed=2100`);
const followedPath = `/runs/followed/sessions/${sessionDirName(r3!)}`;
const followedPage = await timed(`${viewer.url}${followedPath}?page=1000`); // clamped to its last page
const polls: number[] = [];
// As the page's script does: ask from the entries the page holds as settled.
let settled = Number(/data-settled="(\d+)"/.exec(followedPage.text)?.[1]);
for (let n = 1; n <= 20; n++) {
  await openRunStore(followed).appendTranscript(r3!, {
    type: 'attempt',
    at: new Date().toISOString(),
    t: 500 + n,
    attempt: 1,
    activityAttempt: 1,
    latencyMs: 1,
    outcome: 'ok',
    usage: { inputTokens: 600, outputTokens: 40, cachedInputTokens: 0 },
    usageEstimated: false,
  });
  const started = performance.now();
  const update = (await (await fetch(`${viewer.url}/api${followedPath}/live?from=${settled}`)).json()) as { settled: number };
  polls.push(performance.now() - started);
  settled = update.settled;
}

let browser = 'no chromium at /usr/bin/chromium: browser timings skipped';
if (existsSync('/usr/bin/chromium')) {
  const instance = await launchHeadlessChromium('/usr/bin/chromium');
  const tab = await instance.newPage();
  const load = async (url: string) => {
    const started = performance.now();
    await tab.goto(url, { waitUntil: 'load' });
    await tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    return ((performance.now() - started) / 1000).toFixed(2);
  };
  browser = `in chromium, load to paint: run page ${await load(`${viewer.url}/runs/big`)} s, R3 session page ${await load(sessionUrl)} s`;
  await instance.close();
}
await viewer.close();

const runBytes = await bytesUnder(big);
rmSync(dir, { recursive: true, force: true });
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
console.log(
  `View benchmark · node ${process.version} · ${specs.length} synthetic sessions (written in ${writeSeconds.toFixed(1)} s, ${mib(runBytes)} on disk)`,
);
console.log(
  `  open a 10,000-session run: viewer started ${indexSeconds.toFixed(2)} s, run page served ${runPage.seconds.toFixed(2)} s (${mib(runPage.bytes)}), ${openSeconds.toFixed(2)} s in all (target < 2 s); every summary read after ${indexedSeconds.toFixed(2)} s`,
);
console.log(`  heap held after opening: ${mib(heapAfter - heapBefore)} more than before (the run's files: ${mib(runBytes)})`);
console.log(`  a filtered search (rung and seed): ${filtered.seconds.toFixed(3)} s`);
console.log(
  `  an R3 session of ${calls.calls} calls, ${calls.tokens.toLocaleString('en')} tokens (${mib(calls.bytes)} transcript): first page served ${sessionPage.seconds.toFixed(2)} s (${mib(sessionPage.bytes)}), last page ${lastPage.seconds.toFixed(2)} s (target < 2 s)`,
);
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
console.log(
  `  the same session in flight, followed: its last page served ${followedPage.seconds.toFixed(2)} s (the transcript read whole); each later read, a record appended before it, ${median(polls).toFixed(1)} ms (median of ${polls.length}, longest ${Math.max(...polls).toFixed(1)} ms)`,
);
console.log(`  ${browser}`);
