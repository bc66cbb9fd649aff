import { relative } from 'node:path';
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/*
 * The order the suite's files start in: longest first, by each file's wall
 * seconds in a whole run (test/file-durations.json, written by
 * `npm run test:profile`), so the files that mostly wait on servers and
 * timeouts overlap the ones that keep the cores busy, and the run ends on
 * short files. vitest's own cache orders this way only after a first run on
 * the machine; a fresh clone would start the largest files first and leave
 * the waiting ones for last. A file the table does not know starts first.
 */
const DURATIONS = new URL('../file-durations.json', import.meta.url);

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = JSON.parse(readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
    const root = this.ctx.config.root;
    const duration = (file: TestSpecification) => seconds[relative(root, file.moduleId)] ?? Number.MAX_VALUE;
    const group = (file: TestSpecification) => file.project.config.sequence.groupOrder;
    return [...files].sort((a, b) => group(a) - group(b) || duration(b) - duration(a) || (a.moduleId < b.moduleId ? -1 : 1));
  }
}
