import { join } from 'node:path';
import { projectRoot } from '../infra/project-root.js';
import { PAPER_RUNS as PAPER_RUNS_DIR, TEST_GROUPS } from '../infra/test-groups.js';

/**
 * The paper authors' published runs (a subset), beside the repository at
 * ../shared/paper-artifacts/runs. Tests that read them skip, saying why, where
 * the directory is absent.
 */
export const PAPER_RUNS = PAPER_RUNS_DIR;
export const HAVE_PAPER_RUNS = TEST_GROUPS.paperRuns.present;
export const NO_PAPER_RUNS = `skipped: the paper's run artifacts are not at ${PAPER_RUNS}`;

/** The paper's LaTeX source, beside the artifacts. */
export const PAPER_TEX = join(projectRoot(), '..', 'shared', 'paper', 'allocbench.tex');
