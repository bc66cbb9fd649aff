import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';

/*
 * The run store's file primitives: whole JSON files are replaced atomically
 * (write, then rename), JSONL files grow by one appended line per record, and
 * a reader skips a final line cut short by a crash.
 */

let writes = 0;

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // A temporary file per write: concurrent activities may write the same file (a shared stream).
  const temporary = `${path}.${process.pid}.${writes++}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`);
  await rename(temporary, path);
}

export async function readJsonIfExists<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function appendJsonLine(path: string, record: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, `${JSON.stringify(record)}\n`);
}

export async function readJsonLines<T>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const records: T[] = [];
  lines.forEach((line, index) => {
    try {
      records.push(JSON.parse(line) as T);
    } catch (error) {
      // Only the last line can be torn (a crash mid-append); anything else is corruption.
      if (index !== lines.length - 1 || text.endsWith('\n')) throw new Error(`${path}: line ${index + 1} is not JSON`, { cause: error });
    }
  });
  return records;
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
