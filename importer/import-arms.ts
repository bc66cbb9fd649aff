import { resolveRunLocation } from '../run-store/run-location.js';
import { InputError } from '../core/errors.js';
import type { SourceSettings } from '../run-store/provenance.js';
import { findArms, rootOf } from './find-arms.js';
import type { Reparse, SummaryDifference, UnknownReading } from './imported-session.js';
import { readArm } from './read-arm.js';
import { writeImportedArm, type ImportStatus } from './write-import.js';

/** What `allocbench import` says of one arm. */
export interface ArmReport extends Pick<SourceSettings, 'model' | 'rung' | 'reskin' | 'announceN' | 'budget' | 'charge'> {
  readonly source: string;
  readonly seeds: readonly number[];
  /** Decision turns stored (R3: model calls). */
  readonly turns: number;
  /** Every stored decision reply read again by our parser; null at R3, which has no single decision per turn. */
  readonly reparse: Reparse | null;
  /** Where the stored per-session summary disagrees with our recomputation from the stored decisions and stream. */
  readonly summaryDifferences: readonly SummaryDifference[];
  readonly status: ImportStatus;
  readonly runDir: string;
  /** Seeds left out of the arm, one line each naming the file that could not be read. */
  readonly skipped: readonly string[];
  /** Turns whose stored reading no version of the authors' harness writes: kept as stored, counted as unparsed. */
  readonly unknownReadings: readonly UnknownReading[];
}

export interface ImportReport {
  readonly arms: readonly ArmReport[];
  /** One line per directory or arm that could not be imported; the other arms are kept. */
  readonly errors: readonly string[];
}

/** Whether anything was left out: an arm, a seed of an arm (the import exits 3 then). */
export const leftSomethingOut = (report: ImportReport) => report.errors.length > 0 || report.arms.some((arm) => arm.skipped.length > 0);

/**
 * Imports every arm under `paths` (the authors' runs/, arms or economic cells)
 * into run directories under `outDir`, one per arm. An arm that fails to read
 * is reported and skipped; the others are written.
 */
export async function importArms(paths: readonly string[], outDir: string, options: { replace: boolean }): Promise<ImportReport> {
  const { arms, problems } = findArms(paths);
  if (arms.length === 0 && problems.length === 0) throw new InputError(`import: no arms (seed_<S> folders) under ${paths.join(', ')}`);
  const errors = problems.map((problem) => `${problem.path}: ${problem.error}`);
  const reports: ArmReport[] = [];
  for (const found of arms) {
    try {
      const arm = await readArm(found);
      const { status, runDir } = await writeImportedArm(arm, resolveRunLocation(outDir), { root: rootOf(found), replace: options.replace });
      const s = arm.settings;
      reports.push({
        source: arm.source,
        model: s.model,
        rung: s.rung,
        reskin: s.reskin,
        announceN: s.announceN,
        budget: s.budget,
        charge: s.charge,
        seeds: arm.sessions.map((session) => session.seed),
        turns: arm.sessions.reduce((sum, session) => sum + (session.reparse === null ? session.calls : session.decisionTurnsStored), 0),
        reparse: combine(arm.sessions.map((session) => session.reparse)),
        summaryDifferences: arm.sessions.flatMap((session) => session.differences),
        status,
        runDir,
        skipped: arm.skipped,
        unknownReadings: arm.sessions.flatMap((session) => session.unknownReadings),
      });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      errors.push(error.message);
    }
  }
  return { arms: reports, errors };
}

function combine(parts: readonly (Reparse | null)[]): Reparse | null {
  if (parts.some((part) => part === null)) return null;
  const all = parts as Reparse[];
  return {
    turns: all.reduce((sum, p) => sum + p.turns, 0),
    agree: all.reduce((sum, p) => sum + p.agree, 0),
    disagreements: all.flatMap((p) => p.disagreements),
  };
}
