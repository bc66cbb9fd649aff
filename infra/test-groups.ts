import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root.js';

/**
 * The parts of the suite that need something `npm ci` does not install: each
 * group's tests skip where it is absent (CI installs them all, and sets
 * ALLOCBENCH_REQUIRE_* so that an absent one fails instead), and `npm test`
 * ends by naming the groups it skipped and the command that enables each
 * (infra/run-tests.ts). A test that needs one of them asks here.
 */
export interface TestGroup {
  readonly name: string;
  readonly present: boolean;
  /** The one command (or step) that makes the group run. */
  readonly enable: string;
}

const root = projectRoot();

/** SmolLM2-135M as GGUF (infra/fetch-smollm2.ts): the local-model adapter's and the end-to-end test on a real LLM. */
export const SMALL_MODEL_FILE = join(root, 'models', 'SmolLM2-135M-Instruct.Q4_1.gguf');

/** Debian's chromium, for the HTML report's test in a real browser. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

/** The trainer's Python environment (rl/setup.sh), for its pytest suite. */
export const TRAINER_PYTHON = join(root, 'rl', '.venv', 'bin', 'python');

/** The paper authors' published runs (a subset), beside the repository. */
export const PAPER_RUNS = join(root, '..', 'shared', 'paper-artifacts', 'runs');

export const TEST_GROUPS = {
  smallModel: { name: 'the small real LLM (SmolLM2-135M)', present: existsSync(SMALL_MODEL_FILE), enable: 'npm run fetch-model' },
  browser: {
    name: 'the report in a real browser (chromium)',
    present: CHROMIUM !== undefined,
    enable: 'sudo apt-get install chromium',
  },
  trainer: { name: "the trainer's Python tests (rl/tests)", present: existsSync(TRAINER_PYTHON), enable: 'npm run rl:setup' },
  paperRuns: {
    name: "the paper's stored runs",
    present: existsSync(PAPER_RUNS),
    enable: `put the paper's artifacts at ${join('..', 'shared', 'paper-artifacts')} (beside the repository)`,
  },
} as const satisfies Record<string, TestGroup>;
