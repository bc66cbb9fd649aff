import { readdirSync, readFileSync } from 'node:fs';

/** The fields of a /proc stat file after the command name; `field(n)` is stat's n-th field (1-based). */
function statFields(path: string): (n: number) => number {
  const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (n) => Number(fields[n - 3] ?? 0);
}

/**
 * CPU seconds of this process, of its main thread alone (where every
 * activity's code runs: what bounds the turns per second one worker process
 * can carry), and of its children that have exited (the dev server, once
 * stopped), from /proc.
 */
export function cpuSeconds(): { self: number; main: number; children: number } {
  const process = statFields('/proc/self/stat');
  const main = statFields(`/proc/self/task/${globalThis.process.pid}/stat`);
  return { self: (process(14) + process(15)) / 100, main: (main(14) + main(15)) / 100, children: (process(16) + process(17)) / 100 };
}

/** The machine's one-minute load average now. */
export const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

const kib = (status: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);

/** This process's peak resident memory so far, MiB. */
export const peakRssMiB = () => kib(readFileSync('/proc/self/status', 'utf8'), 'VmHWM') / 1024;

/** A process's child processes and their descendants, from /proc; empty once it is gone. */
function descendants(pid: number): number[] {
  try {
    const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
    return children.flatMap((child) => [child, ...descendants(child)]);
  } catch {
    return [];
  }
}

/** A process's resident memory now, KiB; 0 once it is gone. */
export function residentKiB(pid: number): number {
  try {
    return kib(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
  } catch {
    return 0;
  }
}

/** The resident memory of a process's descendants now, summed, KiB. */
export const descendantsResidentKiB = (pid: number) => descendants(pid).reduce((sum, child) => sum + residentKiB(child), 0);

/** The process serving a run (its SQLite file on its command line), if one is running now. */
function serverPid(dbFile: string): string | undefined {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dbFile)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/**
 * Samples the dev server's resident memory every 250 ms until stopped; returns
 * its peak, MiB. The server's process is looked for once, not at every sample:
 * a scan of /proc costs this process about 2 ms.
 */
export function sampleServerPeak(dbFile: string): () => number {
  let peak = 0;
  let pid: string | undefined;
  const sample = () => {
    pid ??= serverPid(dbFile);
    if (!pid) return;
    const resident = residentKiB(Number(pid));
    if (resident === 0) pid = undefined; // it stopped (a restart): look for the next one
    peak = Math.max(peak, resident);
  };
  const timer = setInterval(sample, 250);
  return () => {
    clearInterval(timer);
    return peak / 1024;
  };
}
