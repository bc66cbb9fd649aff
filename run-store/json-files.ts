import {
  appendFileSync,
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';
import { CorruptRunDataError, parseStored } from './corrupt-data.js';
import { tryLock } from './file-lock.js';

/*
 * The run store's file primitives: whole JSON files are replaced atomically
 * (write, then rename), JSONL files grow by one appended line per record.
 * A crash or a full disk can cut the final line short ("torn"): a reader sets
 * it aside and keeps the rest, the next append moves it to <file>.torn and
 * starts on a fresh line, and either reports it once. A line that is not JSON
 * anywhere else is corruption, an error.
 */

let writes = 0;

/**
 * Folders this process has made (or found): a session's folder is made once,
 * not at every append. Should one vanish meanwhile (a run directory removed
 * and started again), the write that finds it missing makes it again.
 */
const madeFolders = new Set<string>();
function inFolder<T>(path: string, write: () => T): T {
  const folder = dirname(path);
  if (!madeFolders.has(folder)) {
    mkdirSync(folder, { recursive: true });
    madeFolders.add(folder);
  }
  try {
    return write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(folder, { recursive: true });
    return write();
  }
}

/**
 * With synchronous calls, as the appends (appendTo): a run's JSON files are small and local, written in
 * microseconds without a thread-pool hop per call. Still async, so a failed write is a rejected promise.
 */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  inFolder(path, () => {
    // A temporary file per write: concurrent activities may write the same file (a shared stream).
    const temporary = `${path}.${process.pid}.${writes++}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(temporary, path);
  });
}

/** A whole JSON file, undefined if there is none; one that does not parse is a CorruptRunDataError naming it. */
export async function readJsonIfExists<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseStored<T>(text, path);
}

/** A final line of a JSONL file cut short by a crash or a full disk. */
export interface TornLine {
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  /** Where it starts, in bytes: the file's intact part is everything before it. */
  readonly offset: number;
  /** Its length in bytes, to the end of the file. */
  readonly bytes: number;
  /** Where an append moved it; absent when a reader only set it aside. */
  readonly movedTo?: string;
}

export type TornLineReporter = (torn: TornLine) => void;

export function describeTornLine(torn: TornLine): string {
  const where = torn.movedTo ? `moved to ${torn.movedTo}` : `set aside (the next append moves it to ${tornPath(torn.path)})`;
  return `${torn.path}: line ${torn.line} was cut short (a crash or a full disk): ${where}; the lines before it are kept`;
}

/** The default reporter: one line on stderr. */
export const reportTornLineOnStderr: TornLineReporter = (torn) => void process.stderr.write(`allocbench: ${describeTornLine(torn)}\n`);

let reporter: TornLineReporter = reportTornLineOnStderr;
const reported = new Set<string>();

/** Where this process reports torn lines (each once); returns the reporter it replaces. */
export function setTornLineReporter(next: TornLineReporter): TornLineReporter {
  const previous = reporter;
  reporter = next;
  return previous;
}

/** Reports a torn line through the process's reporter, once per line. */
export function reportTornLine(torn: TornLine): void {
  const key = `${torn.path}\0${torn.offset}\0${torn.bytes}`;
  if (reported.has(key)) return;
  reported.add(key);
  reporter(torn);
}

const tornPath = (path: string) => `${path}.torn`;

/** Appends in this process, per file, one after another: each checks the file's end before it writes. */
const appending = new Map<string, Promise<AppendedLine | undefined>>();

/** Where an append put its line, when nothing else was written to the file meanwhile. */
export interface AppendedLine {
  readonly inode: number;
  /** The line's first byte. */
  readonly offset: number;
  /** Past its newline: the file's size just after the append. */
  readonly end: number;
  /** The line as written, without its newline. */
  readonly text: string;
}

/**
 * The file as this process's last append to it left it (inode, size, mtime),
 * by path: found so at the next append, its last line is known to be the
 * intact, newline-ended one written then, and is not read back. Any other
 * writer changes the size or the mtime.
 */
const appendedEnds = new Map<string, { readonly inode: number; readonly size: number; readonly mtimeMs: number }>();
const APPENDED_ENDS = 4096;

/**
 * Appends one record as a line. If the file's last line is torn, it is first
 * moved to <file>.torn (reported once) and the file cut back to its intact
 * part; a complete last line without its newline gets one. So a record never
 * lands on the end of a torn line, and a torn line never ends up mid-file.
 * Returns where the line went, unless another process wrote to the file
 * around it (or the append repaired the file's end).
 */
export async function appendJsonLine(path: string, record: unknown): Promise<AppendedLine | undefined> {
  const line = `${JSON.stringify(record)}\n`;
  const previous = appending.get(path) ?? Promise.resolve(undefined);
  const current = previous.catch(() => undefined).then(() => appendAfterIntactLine(path, line));
  appending.set(path, current);
  try {
    return await current;
  } finally {
    if (appending.get(path) === current) appending.delete(path);
  }
}

async function appendAfterIntactLine(path: string, line: string): Promise<AppendedLine | undefined> {
  const appended = inFolder(path, () => appendTo(path, line, false));
  if (appended !== false) return appended;
  // The last line is torn. Another process appending to the same file (a run's cost ledger) may be repairing it too: one at a time.
  const unlock = await lockRepair(path);
  try {
    return (await appendTo(path, line, true)) || undefined;
  } finally {
    unlock();
  }
}

/**
 * Appends after the file's last intact line; false, writing nothing, when the
 * last line is torn and `repair` is not set. Returns where the line went when
 * the file grew by exactly it (no other writer, no repair).
 *
 * With synchronous calls: an append is a few small writes to a local file
 * (the page cache), about 14 µs of CPU this way against 160 µs through
 * fs/promises (a FileHandle, a thread-pool hop and a promise per call), and
 * two appends come with every model call.
 */
function appendTo(path: string, line: string, repair: boolean): AppendedLine | undefined | false {
  const fd = openSync(path, 'a+');
  try {
    const before = fstatSync(fd);
    const known = appendedEnds.get(path);
    const knownEnd = known?.inode === before.ino && known.size === before.size && known.mtimeMs === before.mtimeMs;
    const tail = knownEnd ? undefined : lastLine(fd, before.size);
    let repaired = false;
    if (tail?.torn) {
      if (!repair) return false;
      reportTornLine(setAside(path, fd, tail.offset));
      repaired = true;
    }
    const text = tail && !tail.torn && !tail.newline ? `\n${line}` : line;
    writeAll(fd, Buffer.from(text));
    const after = fstatSync(fd);
    if (repaired || text !== line || after.size !== before.size + Buffer.byteLength(line)) {
      appendedEnds.delete(path);
      return undefined;
    }
    if (appendedEnds.size >= APPENDED_ENDS) appendedEnds.clear();
    appendedEnds.set(path, { inode: after.ino, size: after.size, mtimeMs: after.mtimeMs });
    return { inode: after.ino, offset: before.size, end: after.size, text: line.slice(0, -1) };
  } finally {
    closeSync(fd);
  }
}

/** Writes every byte: a write cut short (a full disk, a file-size limit) is continued, and the next one throws. */
function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
}

const TAIL_CHUNK = 16 * 1024;

/** The file's last non-blank line: where it starts, whether it parses, and whether the file ends with a newline. */
function lastLine(fd: number, size: number): { offset: number; torn: boolean; newline: boolean } | undefined {
  let tail = Buffer.alloc(0);
  let from = size;
  for (;;) {
    const start = Math.max(0, from - TAIL_CHUNK);
    const chunk = Buffer.alloc(from - start);
    if (chunk.length > 0) readSync(fd, chunk, 0, chunk.length, start);
    tail = Buffer.concat([chunk, tail]);
    from = start;
    let last = tail.length - 1;
    while (last >= 0 && isBlank(tail[last] as number)) last--;
    if (last < 0) {
      if (from === 0) return undefined; // empty, or blank lines only
      continue;
    }
    const newlineBefore = tail.lastIndexOf(0x0a, last);
    if (newlineBefore < 0 && from > 0) continue;
    const lineStart = newlineBefore + 1;
    return {
      offset: from + lineStart,
      torn: !parses(tail.toString('utf8', lineStart, last + 1)),
      newline: tail[tail.length - 1] === 0x0a,
    };
  }
}

const isBlank = (byte: number) => byte === 0x0a || byte === 0x0d || byte === 0x20 || byte === 0x09;

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Moves the bytes from `offset` to the end into <path>.torn (one line there per torn line) and cuts the file back to `offset`. */
function setAside(path: string, fd: number, offset: number): TornLine {
  const { size } = fstatSync(fd);
  const head = Buffer.alloc(offset);
  const torn = Buffer.alloc(size - offset);
  readSync(fd, head, 0, head.length, 0);
  readSync(fd, torn, 0, torn.length, offset);
  const text = torn.toString('utf8').replace(/\s+$/, '');
  appendFileSync(tornPath(path), `${text}\n`);
  ftruncateSync(fd, offset);
  fsyncSync(fd);
  let line = 1;
  for (let at = head.indexOf(0x0a); at >= 0; at = head.indexOf(0x0a, at + 1)) line++;
  return { path, line, offset, bytes: torn.length, movedTo: tornPath(path) };
}

/** Takes <path>.repair-lock (the run store's one lock, file-lock.ts), waiting while a live process repairs; returns its release. */
async function lockRepair(path: string): Promise<() => void> {
  for (;;) {
    const taken = tryLock(`${path}.repair-lock`, path, () => undefined);
    if ('lock' in taken) return taken.lock.release;
    await sleep(20);
  }
}

/**
 * Every record of a JSONL file (none if it does not exist). A torn final line
 * is set aside and reported once (setTornLineReporter); a line that is not
 * JSON anywhere else throws, naming the file and the line.
 */
export async function readJsonLines<T>(path: string): Promise<T[]> {
  const { records, torn } = await readJsonLinesWithTorn<T>(path);
  if (torn) reportTornLine(torn);
  return records;
}

/** readJsonLines for a caller that reports a torn final line itself: it is returned, not reported. */
export async function readJsonLinesWithTorn<T>(path: string): Promise<{ records: T[]; torn: TornLine | null }> {
  const { records, torn } = await readJsonLinesAfter<T>(path, START_OF_FILE);
  return { records, torn };
}

/** A place in a JSONL file: a byte offset at the start of a line, and the lines before it. */
export interface LinePosition {
  readonly offset: number;
  readonly line: number;
}

export const START_OF_FILE: LinePosition = { offset: 0, line: 0 };

/**
 * The records of the lines from `from` to the end of the file, and where the
 * intact part ends: a reader that keeps `next` reads only what is appended
 * after it. A torn final line is returned, not consumed (an append moves it
 * away); a line that is not JSON anywhere else throws.
 */
export async function readJsonLinesAfter<T>(
  path: string,
  from: LinePosition,
): Promise<{ records: T[]; torn: TornLine | null; next: LinePosition }> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], torn: null, next: START_OF_FILE };
    throw error;
  }
  let buffer: Buffer;
  try {
    const { size } = await file.stat();
    buffer = Buffer.alloc(Math.max(0, size - from.offset));
    if (buffer.length > 0) await file.read(buffer, 0, buffer.length, from.offset);
  } finally {
    await file.close();
  }
  const records: T[] = [];
  let unparsed: { line: number; offset: number; error: unknown } | undefined;
  let line = from.line;
  let start = 0;
  while (start < buffer.length) {
    const newline = buffer.indexOf(0x0a, start);
    const end = newline < 0 ? buffer.length : newline;
    line++;
    const text = buffer.toString('utf8', start, end);
    if (text.trim() !== '') {
      // Only the last line can be torn (a crash or a full disk mid-append); one with lines after it is corruption.
      if (unparsed) throw new CorruptRunDataError(path, `line ${unparsed.line} is not JSON`);
      try {
        records.push(JSON.parse(text) as T);
      } catch (error) {
        unparsed = { line, offset: start, error };
      }
    }
    start = end + 1;
  }
  const size = from.offset + buffer.length;
  if (!unparsed) return { records, torn: null, next: { offset: size, line } };
  const offset = from.offset + unparsed.offset;
  return { records, torn: { path, line: unparsed.line, offset, bytes: size - offset }, next: { offset, line: unparsed.line - 1 } };
}

const exactNumber = (text: string): number | bigint => (!isSafeNumber(text) && isInteger(text) ? BigInt(text) : Number(text));

/**
 * JSON.parse, except that an integer beyond 2^53 becomes a BigInt instead of
 * being rounded to the nearest double (the paper's stored golds and answers go
 * to 10^40). Text without a run of 16 digits cannot hold one and takes the fast path.
 */
export function parseJsonExact(text: string): unknown {
  return /\d{16}/.test(text) ? parseLossless(text, null, exactNumber) : JSON.parse(text);
}
