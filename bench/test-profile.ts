/*
 * `npm run test:profile`: runs `npm test`'s steps as it does (the build, then
 * vitest, whose global set-up installs the S3 server, beside the checks and the trainer's tests) and
 * prints where the time went: each step, each part's wall and CPU seconds,
 * the files' time split into import, set-up (beforeAll/afterAll: servers,
 * workers, fixtures) and tests, the slowest files and tests, and the figure
 * against its target. Arguments go to vitest (a subset of files profiles
 * those alone, without the checks and the trainer's tests). A whole run that
 * passes also writes each file's wall seconds to test/file-durations.json, the
 * order the suite starts its files in (test/setup/file-order.ts): commit it.
 *
 * Targets, on a 2-core machine: `npm test` in at most 10 minutes with CI's
 * environment (trainer, browser, small model, S3 present), in at most 6
 * without the optional groups (the README's plain `npm test`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { projectRoot } from '../infra/project-root.js';
import { TEST_GROUPS } from '../infra/test-groups.js';
import type { FileProfile } from '../infra/test-reporter.js';
import { cpuSeconds } from '../infra/process-stats.js';
import { runTests, summaryLines } from '../infra/test-run.js';

const TARGET_CI_S = 600;
const TARGET_PLAIN_S = 360;
const TOP = 15;

const vitestArgs = process.argv.slice(2);
const whole = !vitestArgs.some((arg) => !arg.startsWith('-'));

const steps: { name: string; wallS: number; cpuS: number }[] = [];
if (whole) {
  const [began, cpu] = [performance.now(), cpuSeconds().children];
  const result = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  steps.push({ name: 'npm run build', wallS: (performance.now() - began) / 1000, cpuS: cpuSeconds().children - cpu });
  if (result.status !== 0) {
    process.stderr.write('test:profile: npm run build failed\n');
    process.exit(1);
  }
}

const profileFile = join(mkdtempSync(join(tmpdir(), 'allocbench-profile-')), 'profile.json');
const run = await runTests({ vitestArgs, profileFile, checks: whole, trainer: whole && TEST_GROUPS.trainer.present });
const files = run.profile?.files ?? [];

const pad = (text: string, width: number) => text.padEnd(width);
const s = (value: number) => value.toFixed(1).padStart(8);
const sum = (pick: (file: FileProfile) => number) => files.reduce((total, file) => total + pick(file), 0);

const out: string[] = summaryLines(run);
out.push('', `=== where the time went (${cpus().length} cores; ${whole ? 'the whole suite' : vitestArgs.join(' ')}) ===`);
for (const step of steps) out.push(`${pad(step.name, 28)}${s(step.wallS)} s wall ${s(step.cpuS)} CPU-s`);
for (const part of run.parts) out.push(`${pad(part.name, 28)}${s(part.wallS)} s wall ${s(part.cpuS)} CPU-s`);
out.push(
  '',
  `vitest files, summed over ${files.length} files (they overlap in time):`,
  `  wall ${sum((f) => f.wallS).toFixed(0)} s: import ${sum((f) => f.importS).toFixed(0)} s, set-up (beforeAll/afterAll) ${sum((f) => f.setupS).toFixed(0)} s, tests ${sum((f) => f.testsS).toFixed(0)} s; CPU ${sum((f) => f.cpuS ?? 0).toFixed(0)} s`,
  '',
  `slowest ${TOP} files:                   wall    CPU  import  set-up   tests  slowest test`,
);
for (const file of [...files].sort((a, b) => b.wallS - a.wallS).slice(0, TOP)) {
  const slowest = file.slowest[0];
  out.push(
    `  ${pad(file.file.replace(/^test\//, ''), 40)}${s(file.wallS)}${s(file.cpuS ?? Number.NaN)}${s(file.importS)}${s(file.setupS)}${s(file.testsS)}  ${slowest ? `${slowest.s.toFixed(1)} s ${slowest.name.slice(0, 60)}` : ''}`,
  );
}
if (whole) {
  const ci = [TEST_GROUPS.trainer, TEST_GROUPS.browser, TEST_GROUPS.smallModel].every((group) => group.present);
  const total = steps.reduce((t, step) => t + step.wallS, 0) + run.wallS;
  const [target, label] = ci
    ? [TARGET_CI_S, "CI's environment (trainer, browser, small model, S3)"]
    : [TARGET_PLAIN_S, 'the plain npm test'];
  out.push(
    '',
    `npm test: ${total.toFixed(0)} s; target for ${label}: at most ${target} s on 2 cores — ${total <= target ? 'met' : 'NOT met'}`,
    `(the other target: at most ${ci ? TARGET_PLAIN_S : TARGET_CI_S} s for ${ci ? 'the plain npm test' : "CI's environment"}; wall time on a loaded machine overstates both)`,
  );
}
if (whole && run.ok) {
  const seconds = Object.fromEntries(
    [...files].sort((a, b) => (a.file < b.file ? -1 : 1)).map((f) => [f.file, Math.round(f.wallS * 10) / 10]),
  );
  writeFileSync(join(projectRoot(), 'test', 'file-durations.json'), `${JSON.stringify(seconds, null, 2)}\n`);
  out.push('test/file-durations.json: written (the order the suite starts its files in)');
}
process.stdout.write(`${out.join('\n')}\n`);
process.exit(run.ok ? 0 : 1);
