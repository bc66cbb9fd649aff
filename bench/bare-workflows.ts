/*
 * Bare workflows on the embedded dev server (npm run bench:bare [-- <workflows, default 512>]):
 * what a workflow per session costs the server and the worker before the
 * benchmark does anything, and how fast the server starts them — the floor
 * under bench:scale's CPU per session and its ramp at large windows. Each
 * configuration runs on a fresh dev server with the same tuning as a sweep's
 * (bench/bare-measure.ts):
 *   - children of one parent, all started at once, each one local activity
 *     waiting 4 s (so they are all in flight together, as a sweep's were);
 *   - the same started by a client, with no parent: bench:scale's floor
 *     under a session's CPU;
 *   - the same started eagerly by the worker's own client, all at once (as a
 *     sweep's keeper starts its sessions on the embedded server, 32 at a
 *     time): bench:scale's floor under the sessions' start spread;
 *   - sessions grouped 8 and 32 to a workflow, three local activities each
 *     (a session's preparation, a batch of calls, its end).
 * Printed: the server's and this process's CPU per workflow or per session,
 * and for the first three how long the starts took (first to last start
 * time) and how long until every workflow had begun its local activity.
 */
import { installQuietRuntime } from '../infra/temporal-runtime.js';
import { measureBare, type BareCost, type BareShape } from './bare-measure.js';

const count = Number(process.argv[2] ?? 512);
installQuietRuntime();

console.log(`Bare workflows on the dev server · node ${process.version} · ${count} at a time`);
const shapes: readonly [BareShape, string, string][] = [
  ['children', 'children of one parent', 'workflow'],
  ['client', 'started by a client', 'workflow'],
  ['eager', "eagerly by the worker's client", 'workflow'],
  ['group-8', '8 sessions to a workflow', 'session'],
  ['group-32', '32 sessions to a workflow', 'session'],
];
for (const [shape, what, unit] of shapes) {
  const r: BareCost = await measureBare(shape, count);
  console.log(
    `  ${what.padEnd(34)} server ${r.serverMs.toFixed(1)} ms, this process ${r.processMs.toFixed(1)} ms per ${unit}` +
      (r.begunOverSeconds === null
        ? ''
        : ` (together ${(r.serverMs + r.processMs).toFixed(1)} ms); started over ${r.startedOverSeconds.toFixed(1)} s, all begun after ${r.begunOverSeconds.toFixed(1)} s`),
  );
}
