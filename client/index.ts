/*
 * AllocBench as a library: what the `allocbench` command does with a sweep,
 * for a researcher's own program (a notebook, a scheduler, a CI job). The
 * command calls these same functions.
 *
 *   import { defineSweep, runSweep } from 'allocbench';
 *   const outcome = await runSweep(defineSweep({ name: 'mine', models: ['policy/bayes'], rungs: ['R1'], seeds: '2000-2005' }));
 */
export { defineSweep, loadSweep, type SweepOverrides, type SweepSubject } from './load-sweep.js';
export { runSweep, type RunSweepOptions, type SweepOutcome } from './run-sweep.js';
export { runStatus, watchRuns, isMoving, type RunStatus } from './run-status.js';
export { cancelSweep, type CancelOutcome } from './cancel-sweep.js';
export { estimateSweep, type CellEstimate } from './cost-estimate.js';
export type { ProgressListener, SpendProgress } from './sweep-progress.js';
export type { SweepConfig } from '../core/sweep/sweep-config.js';
export type { SweepProgress } from '../workflows/sweep-progress.js';
export type { RunResults, CellResult } from '../analysis/run-results.js';
export { SESSION_STATES, type SessionState, type SessionReading } from '../run-store/session-states.js';
