import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../infra/project-root.js';
import type { SupervisedRun } from './supervised-run.js';
import type { SandboxLimits } from '../../core/scripts/script-outcome.js';

/** One run, as sent to the isolate process. */
export interface HostRequest {
  readonly code: string;
  readonly inputsJson: string;
  readonly limits: SandboxLimits;
  /** Keep the isolate for the next run. */
  readonly warm: boolean;
}

/** The isolate process's answer: the run, or the sandbox's own failure. */
export type HostReply = { readonly run: SupervisedRun } | { readonly bug: string };

/** The isolate process's entry (isolate-host.ts, compiled). */
export const isolateHostPath = () => join(projectRoot(), 'dist', 'activities', 'sandbox', 'isolate-host.js');

/**
 * A process of its own for a script's isolate (isolate-host.ts, compiled, from
 * dist/), so that the CPU time it counts is the script's alone, and killing it
 * stops what disposing an isolate cannot.
 */
export class IsolateProcess {
  /** How the process ended, once it has. */
  private ended: string | undefined;

  private constructor(private readonly child: ChildProcess) {
    child.once('exit', (code, signal) => (this.ended = signal ?? `code ${code}`));
    this.hold(false);
  }

  static start(): Promise<IsolateProcess> {
    const child = fork(isolateHostPath(), [], {
      execArgv: ['--no-node-snapshot'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const failed = (why: string) => reject(new Error(`sandbox: the isolate process exited before it was ready (${why})`));
      // Also after the start: a run learns of a failure from the exit that follows it, or from its send.
      child.on('error', (error) => failed(error.message));
      child.once('exit', (code, signal) => failed(signal ?? `code ${code}`));
      child.once('message', () => resolve(new IsolateProcess(child)));
    });
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  run(request: HostRequest): Promise<SupervisedRun> {
    this.hold(true);
    return new Promise<SupervisedRun>((resolve, reject) => {
      // Mechanical, not the script's outcome: a V8 fatal error, or a kill from outside. The caller may run it again.
      const lost = (why: string) => reject(new Error(`sandbox: the isolate process ended (${why}) while the script ran`));
      const answered = (reply: HostReply) => {
        this.child.off('exit', exited);
        if ('bug' in reply) reject(new Error(`sandbox: ${reply.bug}`));
        else resolve(reply.run);
      };
      const exited = (code: number | null, signal: string | null) => {
        this.child.off('message', answered);
        lost(signal ?? `code ${code}`);
      };
      this.child.once('message', answered);
      this.child.once('exit', exited);
      this.child.send(request, (error) => error && lost(this.ended ?? error.message));
    }).finally(() => this.hold(false));
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** Whether the child and its channel keep this process's event loop alive: only while a run is in flight. */
  private hold(busy: boolean): void {
    if (busy) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }
}
