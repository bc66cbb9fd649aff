import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds of this process and of its children that have exited (the dev server, once stopped), from /proc. */
export function cpuSeconds(): { self: number; children: number } {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = (index: number) => Number(fields[index - 3] ?? 0) / 100;
  return { self: ticks(14) + ticks(15), children: ticks(16) + ticks(17) };
}

const kib = (status: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);

/** This process's peak resident memory so far, MiB. */
export const peakRssMiB = () => kib(readFileSync('/proc/self/status', 'utf8'), 'VmHWM') / 1024;

/** The dev server serving a run (a process with the run's SQLite file on its command line): its resident memory now, KiB. */
function serverRssKib(dbFile: string): number {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dbFile)) continue;
      return kib(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
    } catch {
      // gone meanwhile
    }
  }
  return 0;
}

/** Samples the dev server's resident memory every 250 ms until stopped; returns its peak, MiB. */
export function sampleServerPeak(dbFile: string): () => number {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, serverRssKib(dbFile))), 250);
  return () => {
    clearInterval(timer);
    return peak / 1024;
  };
}
