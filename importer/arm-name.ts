import type { Rung } from '../core/rungs/rung.js';
import type { Reskin } from '../core/rungs/vocabulary.js';

/** The authors' vocabulary names (`_vocab-<name>`, a session's `vocab`) for our reskins. */
export const AUTHORS_VOCABULARIES: Readonly<Record<string, Reskin>> = {
  ball: 'ball',
  treasure_chest: 'chest',
  chest: 'chest',
  quiver: 'quiver',
  cauldron: 'cauldron',
};

/**
 * What an arm's directory name says, in the authors' naming (paper-artifacts
 * README): `urn_*` R0, `urn_tool_*` the probe, `claim_solver_*` R1,
 * `claim_solver_code_*` R2, `arm_a1_announce*` R3, then an optional model token
 * (':' written '_') and suffix tokens; economic cells are
 * `economic_surface_<model>/R{0,2}/B_<B>/K_<K>`.
 */
export interface ArmName {
  readonly rung: Rung;
  /** The model token of the name, or null where the name has none (the Haiku R3 arm). */
  readonly modelToken: string | null;
  /** The urn vocabulary named by `_vocab-<name>`, as the authors spell it; null without one. */
  readonly vocab: string | null;
  /** `_n-announced`; null where the name cannot say (economic cells: their settings do). */
  readonly announceN: boolean | null;
  /** `_efr<N>`: empty-fence retries. */
  readonly emptyRetries: number | null;
  /** `_class-bound-v<k>`: the class-bound R3 protocol. */
  readonly classBound: string | null;
  /** `_mag<M>`. */
  readonly magnitude: number | null;
  /** Economic cells: B and K from the path. */
  readonly budget: number | null;
  readonly charge: number | null;
  /** Other suffix tokens (`canonical-structure`, `write-budget-v2`, …), kept as provenance. */
  readonly variants: readonly string[];
}

/** Name prefixes, longest first so `claim_solver_code_` is not read as `claim_solver_`. */
const PREFIXES: readonly (readonly [string, Rung])[] = [
  ['claim_solver_code_', 'R2'],
  ['claim_solver_', 'R1'],
  ['urn_tool_', 'probe'],
  ['urn_', 'R0'],
  ['arm_a1_announce_', 'R3'],
];

const ECONOMIC_PREFIX = 'economic_surface_';

/** Top-level names under the authors' runs/ that hold no arm. */
export function isKnownNonArm(name: string): boolean {
  return name === 'economic_surface_reference' || name.startsWith('box_logs') || name.startsWith('_economic_surface_selftest');
}

/** Whether a top-level directory name belongs to one of the arm formats. */
export function isArmFamily(name: string): boolean {
  return (
    !isKnownNonArm(name) &&
    (name.startsWith(ECONOMIC_PREFIX) || name === 'arm_a1_announce' || PREFIXES.some(([prefix]) => name.startsWith(prefix)))
  );
}

const TOKEN_PATTERNS: readonly RegExp[] = [
  /^n-announced$/,
  /^vocab-.+$/,
  /^efr\d+$/,
  /^class-bound-v\d+$/,
  /^mag\d+$/,
  /^canonical-structure$/,
  /^write-budget-v\d+$/,
  /^smoke$/,
  /^publication$/,
];
const isToken = (part: string) => TOKEN_PATTERNS.some((pattern) => pattern.test(part));

/** Model token and suffix tokens of the part after the prefix. */
function readSuffix(rest: string): Omit<ArmName, 'rung' | 'budget' | 'charge'> {
  const parts = rest === '' ? [] : rest.split('_');
  const firstToken = parts.findIndex(isToken);
  const modelParts = firstToken === -1 ? parts : parts.slice(0, firstToken);
  const tokens: string[] = [];
  for (const part of firstToken === -1 ? [] : parts.slice(firstToken)) {
    // A vocabulary may itself contain '_' (treasure_chest): a part that continues a known name belongs to it.
    const last = tokens.at(-1);
    const joined = `${last?.slice('vocab-'.length)}_${part}`;
    const continues = last?.startsWith('vocab-') && Object.keys(AUTHORS_VOCABULARIES).some((name) => name.startsWith(joined));
    if (!isToken(part) && continues) tokens[tokens.length - 1] = `${last}_${part}`;
    else tokens.push(part);
  }
  const find = (prefix: string) => tokens.find((token) => token.startsWith(prefix));
  const number = (token: string | undefined, prefix: string) => (token === undefined ? null : Number(token.slice(prefix.length)));
  const known = ['n-announced', 'vocab-', 'efr', 'class-bound-', 'mag'];
  return {
    modelToken: modelParts.length > 0 ? modelParts.join('_') : null,
    vocab: find('vocab-')?.slice('vocab-'.length) ?? null,
    announceN: tokens.includes('n-announced'),
    emptyRetries: number(find('efr'), 'efr'),
    classBound: find('class-bound-')?.slice('class-bound-'.length) ?? null,
    magnitude: number(find('mag'), 'mag'),
    variants: tokens.filter((token) => !known.some((prefix) => token.startsWith(prefix))),
  };
}

/**
 * Reads an arm's source path (relative to the imported root, '/'-separated).
 * Returns null for a path that follows none of the formats.
 */
export function parseArmName(source: string): ArmName | null {
  const segments = source.split('/');
  const top = segments[0] ?? '';
  if (top.startsWith(ECONOMIC_PREFIX)) {
    const cell = /^(R0|R2|R2c)\/B_(\d+)\/K_(\d+)$/.exec(segments.slice(1).join('/'));
    if (!cell) return null;
    const modelToken = top.slice(ECONOMIC_PREFIX.length);
    return {
      rung: cell[1] === 'R0' ? 'R0' : 'R2',
      modelToken: modelToken || null,
      vocab: null,
      announceN: null,
      emptyRetries: null,
      classBound: null,
      magnitude: null,
      budget: Number(cell[2]),
      charge: Number(cell[3]),
      variants: [],
    };
  }
  if (segments.length !== 1) return null;
  if (top === 'arm_a1_announce') return { rung: 'R3', ...readSuffix(''), budget: null, charge: null };
  const match = PREFIXES.find(([prefix]) => top.startsWith(prefix));
  if (!match) return null;
  return { rung: match[1], ...readSuffix(top.slice(match[0].length)), budget: null, charge: null };
}
