/*
 * The RL environment's cost per decision (npm run bench:rl-env): one outer
 * step's rollouts at the paper's scale — 25 seeds × 4 rollouts, T = 60, R0,
 * lockstep — played by a scripted trainer that answers instantly (a keep one
 * time in six, else a pass), once in process (RlEnvironment.handle) and once
 * through `allocbench rl-env` over stdio, as the Python trainer drives it.
 * What the trainer itself spends (generation, the update) is not here.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { RlEnvironment } from '../rl/bridge/rl-env-protocol.js';
import { cliPath } from '../infra/project-root.js';

const SEEDS = 25;
const ROLLOUTS = 4;

interface Decision {
  readonly id: string;
  readonly done: boolean;
}

const resetRequest = () => ({
  op: 'reset',
  episodes: Array.from({ length: SEEDS * ROLLOUTS }, (_, i) => ({
    id: `e${i}`,
    seed: 9000 + Math.floor(i / ROLLOUTS),
    rung: 'R0',
    length: 60,
  })),
});

/** Plays the step through `send`, lockstep: every pending episode answers, then the next round. Returns decisions made. */
async function play(send: (request: object) => Promise<{ decisions?: Decision[]; results?: { next: Decision }[] }>): Promise<number> {
  let pending = ((await send(resetRequest())).decisions ?? []).filter((d) => !d.done);
  let decisions = 0;
  for (let round = 0; pending.length > 0; round++) {
    const replies = pending.map((d, i) => ({ id: d.id, text: (i + round) % 6 === 0 ? 'DECISION: KEEP' : 'DECISION: PASS' }));
    decisions += replies.length;
    pending = ((await send({ op: 'step', replies })).results ?? []).map((r) => r.next).filter((d) => !d.done);
  }
  return decisions;
}

async function inProcess(): Promise<{ decisions: number; ms: number }> {
  const environment = new RlEnvironment();
  const started = performance.now();
  const decisions = await play(async (request) => JSON.parse(environment.handle(JSON.stringify(request))));
  return { decisions, ms: performance.now() - started };
}

async function overStdio(): Promise<{ decisions: number; ms: number }> {
  const main = cliPath();
  const child = spawn(process.execPath, ['--no-node-snapshot', main, 'rl-env'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const send = async (request: object) => {
    child.stdin.write(`${JSON.stringify(request)}\n`);
    const { value } = await lines.next();
    return JSON.parse(String(value));
  };
  const started = performance.now();
  const decisions = await play(send);
  const ms = performance.now() - started;
  child.stdin.end();
  return { decisions, ms };
}

for (const [name, run] of [
  ['in process', inProcess],
  ['over stdio', overStdio],
] as const) {
  const { decisions, ms } = await run();
  console.log(
    `${name.padEnd(11)} ${decisions} decisions of ${SEEDS * ROLLOUTS} episodes in ${(ms / 1000).toFixed(2)} s: ${((1000 * decisions) / ms).toFixed(0)} decisions/s, ${((1000 * ms) / decisions).toFixed(0)} µs each`,
  );
}
