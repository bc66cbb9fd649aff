/*
 * `npm test`'s last step, after the build (infra/test-run.ts): vitest, the
 * checks and the trainer's tests side by side, then the summary. Arguments go
 * to vitest (`npm test -- test/cli` runs those files); with files named, the
 * trainer's tests are left out. Without the trainer's environment its tests
 * are skipped and the summary says how to enable them, unless
 * ALLOCBENCH_REQUIRE_RL=1 (CI sets it after npm run rl:setup), which makes a
 * missing environment a failure rather than a quiet skip.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_GROUPS, TRAINER_PYTHON } from './test-groups.js';
import { runTests, summaryLines } from './test-run.js';

const vitestArgs = process.argv.slice(2);
if (process.env.ALLOCBENCH_REQUIRE_RL === '1' && !TEST_GROUPS.trainer.present) {
  process.stderr.write(`allocbench: the trainer's tests need its environment (${TRAINER_PYTHON}): npm run rl:setup\n`);
  process.exit(1);
}
const trainer = TEST_GROUPS.trainer.present && !vitestArgs.some((arg) => !arg.startsWith('-'));
const profileFile = process.env.ALLOCBENCH_TEST_PROFILE ?? join(mkdtempSync(join(tmpdir(), 'allocbench-test-')), 'profile.json');
const run = await runTests({ vitestArgs, profileFile, checks: true, trainer });
process.stdout.write(`${summaryLines(run).join('\n')}\n`);
process.exit(run.ok ? 0 : 1);
