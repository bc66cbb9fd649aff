/**
 * Environment variables that set an option's default (an option given on the
 * command line wins; `.env` in the working directory may set them too). Each
 * option's --help names its variable.
 */
export const ENV_DEFAULTS = {
  /** run --model */
  model: 'ALLOCBENCH_MODEL',
  /** run --seeds */
  seeds: 'ALLOCBENCH_SEEDS',
  /** run --window */
  window: 'ALLOCBENCH_WINDOW',
  /** run and sweep --unit-cap */
  unitCap: 'ALLOCBENCH_UNIT_CAP',
  /** run and sweep --cap */
  cap: 'ALLOCBENCH_CAP',
  /** run and sweep --temporal-port */
  temporalPort: 'ALLOCBENCH_TEMPORAL_PORT',
  /** run and sweep --prices */
  prices: 'ALLOCBENCH_PRICES',
} as const;
