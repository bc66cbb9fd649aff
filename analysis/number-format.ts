/** Numbers as tables show them: a rate as a percentage, a value to fixed digits; none as '–'. */

export function percent(value: number | null, digits = 1): string {
  return value === null ? '–' : `${(100 * value).toFixed(digits)}%`;
}

export function fixed(value: number | null, digits = 2): string {
  return value === null ? '–' : value.toFixed(digits);
}

/** A script run's CPU and wall time; a run recorded before its CPU time was measured has its wall time alone. */
export const runClocks = ({ ms, cpuMs }: { readonly ms: number; readonly cpuMs?: number }) =>
  cpuMs === undefined ? `${ms.toFixed(1)} ms` : `${cpuMs.toFixed(1)} ms of CPU, ${ms.toFixed(1)} ms wall`;
