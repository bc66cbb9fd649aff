/** A script that only computes: n steps of the same work, in the sandbox and here. */
export function busyLoop(n: number): number {
  let x = 1;
  for (let i = 0; i < n; i++) x = (x * 31 + 7) % 1000003;
  return x;
}

export const BUSY = `function solve({ n }) { let x = 1; for (let i = 0; i < n; i++) x = (x * 31 + 7) % 1000003; return x; }`;

/** The loop's steps per ms of CPU time, measured in this process. */
export function stepsPerCpuMs(): number {
  const steps = 20_000_000;
  const before = process.cpuUsage();
  busyLoop(steps);
  const used = process.cpuUsage(before);
  return steps / ((used.user + used.system) / 1000);
}
