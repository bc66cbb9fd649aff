/**
 * The CLI's exit status (documented in `run --help`, `sweep --help`,
 * docs/running-resuming-auditing.md and docs/cli.md).
 */
export const EXIT = {
  ok: 0,
  /** Anything unexpected (a bug): the message, with the stack under ALLOCBENCH_DEBUG. */
  internal: 1,
  /** Bad flags or input, a run directory in use, or a file-system error on it (nothing started, or the run stopped). */
  usage: 2,
  /**
   * `run` or `sweep`: some session did not complete (a failed workflow or a
   * mechanical failure); `import`: some arm or seed could not be read and was
   * left out, the rest imported; `rescore`: some session could not be
   * rescored, the rest were. Listed on stderr.
   */
  incomplete: 3,
} as const;

export const EXIT_STATUS_HELP = `
Exit status:
  0  every session of the run completed
  1  internal error
  2  bad input, the run directory in use by another command, or a file-system
     error on it (a full disk, a read-only or unwritable directory): one line
  3  some session did not complete (its workflow failed, it ended as a
     mechanical failure: transport-exhausted, provider-error, or the sweep was
     cancelled); they are listed on stderr, and running the same command again
     replaces them (a cancelled session goes on from where it stopped)`;

/** Some session of a run did not complete; the sessions have been listed on stderr. */
export class IncompleteRunError extends Error {
  override readonly name = 'IncompleteRunError';
}

/** The sweep this command waited for was cancelled (`allocbench cancel`); its sessions stopped where they were. */
export class SweepCancelledError extends Error {
  override readonly name = 'SweepCancelledError';
}
