import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** Before the suite: an empty directory for the fixtures test files share (test/shared-fixture.ts); removed after it. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'allocbench-fixtures-'));
  project.provide('fixturesDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
