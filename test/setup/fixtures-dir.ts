import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** An empty directory for the fixtures test files share (test/shared-fixture.ts), handed to the files; returns what removes it. */
export function makeFixturesDir(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'allocbench-fixtures-'));
  project.provide('fixturesDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
