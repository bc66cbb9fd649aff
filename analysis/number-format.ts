/** Numbers as tables show them: a rate as a percentage, a value to fixed digits; none as '–'. */

export function percent(value: number | null, digits = 1): string {
  return value === null ? '–' : `${(100 * value).toFixed(digits)}%`;
}

export function fixed(value: number | null, digits = 2): string {
  return value === null ? '–' : value.toFixed(digits);
}
