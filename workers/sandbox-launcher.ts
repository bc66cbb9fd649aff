import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../infra/project-root.js';

export interface SandboxProcess {
  /** The current process id (it changes when the process is restarted). */
  pid(): number | undefined;
  /** How many times the process died and was started again. */
  restarts(): number;
  stop(): Promise<void>;
}

export interface SandboxProcessOptions {
  /** Temporal connection settings for the child (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE). */
  readonly env: Readonly<Record<string, string>>;
  /** Scripts run at once. */
  readonly concurrency: number;
  /** Told when the process dies unexpectedly. */
  readonly say: (line: string) => void;
}

const RESTART_DELAY_MS = 1000;
const STOP_GRACE_MS = 10_000;

/**
 * Starts the sandbox worker process (compiled, from dist/) and keeps it
 * running: if it dies under a script (killed, out of memory), it is started
 * again and the activity's retry runs the script again on the fresh process
 * (runScript bounds how often). The IPC channel ends it if this process dies.
 */
export function startSandboxProcess(options: SandboxProcessOptions): SandboxProcess {
  const entry = join(projectRoot(), 'dist', 'workers', 'sandbox-process.js');
  let child: ChildProcess;
  let stopping = false;
  let restarts = 0;
  const spawnChild = () => {
    child = fork(entry, [], {
      execArgv: ['--no-node-snapshot'],
      env: { ...process.env, ...options.env, ALLOCBENCH_SANDBOX_CONCURRENCY: String(options.concurrency) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('exit', (code, signal) => {
      if (stopping) return;
      restarts++;
      options.say(`sandbox worker exited (${signal ?? `code ${code}`}); starting it again`);
      setTimeout(() => stopping || spawnChild(), RESTART_DELAY_MS).unref();
    });
  };
  spawnChild();
  return {
    pid: () => child.pid,
    restarts: () => restarts,
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(killer);
    },
  };
}
