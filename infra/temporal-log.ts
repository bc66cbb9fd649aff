import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/*
 * A run's Temporal log: the Temporal SDK's warnings and errors (of this
 * process and of the sandbox worker it starts) and the embedded dev server's
 * output, kept off the terminal. A line each: the time, the source (sdk or
 * server), then an SDK line's level and message, or the server's own line,
 * which carries its level (level=ERROR).
 */

export type TemporalLogSource = 'sdk' | 'server';

export function appendTemporalLog(file: string, source: TemporalLogSource, text: string): void {
  const line = `${new Date().toISOString()} ${source} ${text}\n`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, line);
  } catch {
    // A log that cannot be written (a full disk, which the run reports itself) loses no line: the terminal gets it.
    process.stderr.write(line);
  }
}

/** The log's length now: what is appended after it is a command's own (temporalLogSummary). */
export function temporalLogLength(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}

const PROBLEM = /^\S+ (?:(sdk) (WARN|ERROR) |(server) .*\blevel=(WARN|ERROR)\b)/;

const counted = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The warnings and errors among the lines appended after `from`: each one's source and level. */
export function temporalLogProblems(file: string, from = 0): { source: TemporalLogSource; level: 'WARN' | 'ERROR' }[] {
  const length = temporalLogLength(file);
  if (length <= from) return [];
  const added = Buffer.alloc(length - from);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, added, 0, added.length, from);
  } finally {
    closeSync(fd);
  }
  return added
    .toString('utf8')
    .split('\n')
    .flatMap((line) => {
      const match = PROBLEM.exec(line);
      if (!match) return [];
      return [{ source: (match[1] ?? match[3]) as TemporalLogSource, level: (match[2] ?? match[4]) as 'WARN' | 'ERROR' }];
    });
}

/** "Temporal logged 14 warnings and 1 error (<file>)" for the lines appended after `from`; undefined when none is a warning or an error. */
export function temporalLogSummary(file: string, from: number): string | undefined {
  const levels = temporalLogProblems(file, from).map((problem) => problem.level);
  const warnings = levels.filter((level) => level === 'WARN').length;
  const errors = levels.filter((level) => level === 'ERROR').length;
  if (warnings + errors === 0) return undefined;
  const what = [warnings > 0 && counted(warnings, 'warning'), errors > 0 && counted(errors, 'error')].filter(Boolean).join(' and ');
  return `Temporal logged ${what} (${file})`;
}
