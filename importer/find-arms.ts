import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { InputError } from '../core/errors.js';
import { isArmFamily, isKnownNonArm, parseArmName, type ArmName } from './arm-name.js';

/** An arm found on disk: where it is, its path relative to the imported root, and what its name says. */
export interface FoundArm {
  readonly dir: string;
  /** The arm's path from the authors' runs/ level, '/'-separated, e.g. `economic_surface_haiku/R2/B_1/K_10`. */
  readonly source: string;
  readonly name: ArmName;
  /** Seeds present (seed_<S> folders), ascending. */
  readonly seeds: readonly number[];
}

/** A directory that could not be read as an arm, and why (one line). */
export interface ArmProblem {
  readonly path: string;
  readonly error: string;
}

const SEED_DIR = /^seed_(\d+)$/;
const MAX_DEPTH = 6;

function subdirectories(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function seedsOf(dir: string): number[] {
  return subdirectories(dir)
    .flatMap((name) => {
      const match = SEED_DIR.exec(name);
      return match ? [Number(match[1])] : [];
    })
    .sort((a, b) => a - b);
}

/**
 * The arm's source path: from the path component that names an arm format
 * (urn_…, economic_surface_…) down to the arm itself, so that `runs/`, an arm
 * or an economic cell passed directly all give the same source.
 */
function sourceOf(dir: string): string | null {
  const parts = resolve(dir).split(sep);
  for (let i = parts.length - 1; i >= 0; i--) {
    if (isArmFamily(parts[i] ?? '')) return parts.slice(i).join('/');
  }
  return null;
}

/**
 * Every arm under the given directories (each may be the authors' runs/, an
 * arm, or an economic cell). Directories that hold seed folders but follow no
 * format are problems; known non-arm folders (logs, the economic reference)
 * are passed over.
 */
export function findArms(paths: readonly string[]): { arms: FoundArm[]; problems: ArmProblem[] } {
  const arms = new Map<string, FoundArm>();
  const problems: ArmProblem[] = [];
  const visit = (dir: string, depth: number) => {
    if (isKnownNonArm(basename(dir))) return;
    const seeds = seedsOf(dir);
    if (seeds.length > 0) {
      const source = sourceOf(dir);
      const name = source === null ? null : parseArmName(source);
      if (source === null || name === null) {
        problems.push({
          path: dir,
          error: `not an arm of a known format (expected urn_*, urn_tool_*, claim_solver_*, claim_solver_code_*, arm_a1_announce*, or economic_surface_<model>/R0|R2/B_<B>/K_<K>)`,
        });
      } else if (arms.has(source)) {
        problems.push({
          path: dir,
          error: `a second arm with the source path ${source} (the first is ${arms.get(source)?.dir}); import them separately`,
        });
      } else {
        arms.set(source, { dir, source, name, seeds });
      }
      return;
    }
    if (depth >= MAX_DEPTH) return;
    for (const child of subdirectories(dir)) visit(join(dir, child), depth + 1);
  };
  for (const path of paths) {
    let isDirectory = false;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      throw new InputError(`import: no such directory ${path}`);
    }
    if (!isDirectory) throw new InputError(`import: ${path} is not a directory`);
    visit(resolve(path), 0);
  }
  return { arms: [...arms.values()].sort((a, b) => a.source.localeCompare(b.source)), problems };
}

/** The authors' runs/ root an arm was found under (its source's first component's parent). */
export function rootOf(arm: FoundArm): string {
  let root = arm.dir;
  for (let i = 0; i < arm.source.split('/').length; i++) root = dirname(root);
  return root;
}

export const relativeTo = (root: string, path: string) => relative(root, path).split(sep).join('/');
