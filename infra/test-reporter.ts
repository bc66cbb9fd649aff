/*
 * A vitest reporter that writes, per test file, where its time went: the
 * import (collect: the file and everything it imports, suite callbacks),
 * the set-up (beforeAll/afterAll hooks: servers, workers, fixtures) and the
 * tests themselves, with when the file started and ended and how many of its
 * tests passed, failed and were skipped. infra/run-tests.ts reads it for the
 * skipped groups and bench/test-profile.ts for the profile.
 * The output file is ALLOCBENCH_TEST_PROFILE (set by infra/run-tests.ts).
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Reporter, TestModule } from 'vitest/node';

declare module '@vitest/runner' {
  interface TaskMeta {
    /** CPU seconds of the file's run: its worker process and the processes it started and waited for (servers, CLIs). */
    cpuS?: number;
  }
}

export interface FileProfile {
  readonly file: string;
  /** Wall-clock seconds from the file's start to its end, on the reporter's clock (import, hooks and tests). */
  readonly wallS: number;
  /** Seconds after the run's first file started. */
  readonly startS: number;
  readonly importS: number;
  /** beforeAll/afterAll hooks and anything else the file's run spent outside its tests. */
  readonly setupS: number;
  readonly testsS: number;
  /** CPU seconds of the file's process and those it waited for (test/setup/cpu-per-file.ts). */
  readonly cpuS: number | undefined;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** The slowest tests, seconds each. */
  readonly slowest: readonly { readonly name: string; readonly s: number }[];
}

export interface RunProfile {
  readonly wallS: number;
  readonly files: readonly FileProfile[];
}

const seconds = (ms: number) => Math.round(ms) / 1000;

export default class TestProfileReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly ended = new Map<string, number>();
  private first: number | undefined;

  onTestModuleStart(module: TestModule): void {
    const now = performance.now();
    this.first ??= now;
    this.started.set(module.moduleId, now);
  }

  onTestModuleEnd(module: TestModule): void {
    this.ended.set(module.moduleId, performance.now());
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const out = process.env.ALLOCBENCH_TEST_PROFILE;
    if (!out) return;
    const origin = this.first ?? performance.now();
    const files = modules.map((module): FileProfile => {
      const diagnostic = module.diagnostic();
      const tests = [...module.children.allTests()];
      const durations = tests.map((test) => ({ name: test.fullName, s: seconds(test.diagnostic()?.duration ?? 0) }));
      const testsS = durations.reduce((sum, test) => sum + test.s, 0);
      const importMs = diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.prepareDuration;
      const end = this.ended.get(module.moduleId) ?? origin;
      // A worker's events come in batches, so a file whose one test runs long can be reported started only as it
      // ends: such a file is timed by its own diagnostic.
      const wall = Math.max(end - (this.started.get(module.moduleId) ?? end), importMs + diagnostic.duration);
      const count = (state: string) => tests.filter((test) => test.result().state === state).length;
      return {
        file: module.relativeModuleId,
        wallS: seconds(wall),
        startS: seconds(Math.max(0, end - wall - origin)), // a back-dated start can precede the first one reported
        importS: seconds(importMs),
        setupS: seconds(Math.max(0, diagnostic.duration - testsS * 1000)),
        testsS: seconds(testsS * 1000),
        cpuS: module.meta().cpuS,
        passed: count('passed'),
        failed: count('failed'),
        skipped: count('skipped'),
        slowest: durations.sort((a, b) => b.s - a.s).slice(0, 3),
      };
    });
    const profile: RunProfile = { wallS: seconds(performance.now() - origin), files };
    writeFileSync(out, JSON.stringify(profile, null, 1));
  }
}
