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
   * `run` or `sweep`: some session did not finish (stopped by a cost cap,
   * cancelled, failed mechanically, or its workflow failed); `import`: some arm or seed could not be read and was
   * left out, the rest imported; `rescore`: some session could not be
   * rescored, the rest were. Listed on stderr.
   */
  incomplete: 3,
} as const;

export const EXIT_STATUS_HELP = `
Exit status:
  0  every session of the run finished
  1  internal error
  2  bad input, the run directory in use by another command, or a file-system
     error on it (a full disk, a read-only or unwritable directory): one line
  3  some session did not finish: stopped by a cost cap, cancelled, failed
     mechanically (transport-exhausted, provider-error), or its workflow failed;
     each is listed on stderr with its state, and the same command (with a
     higher cap where one stopped them) goes on with each from its last
     recorded turn`;

/** Some session of a run did not finish; the sessions have been listed on stderr. */
export class IncompleteRunError extends Error {
  override readonly name = 'IncompleteRunError';
}
