import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendJsonLine,
  readJsonLines,
  readJsonLinesWithTorn,
  setTornLineReporter,
  type TornLine,
  type TornLineReporter,
} from '../../run-store/json-files.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-jsonl-'));
let count = 0;
const fresh = () => join(dir, `f${count++}.jsonl`);
const record = (n: number) => ({ type: 'attempt', n, text: 'x'.repeat(n % 7) });
const lines = (...records: unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const TORN = '{"type":"turn","t":3,"us';

let reports: TornLine[];
let restore: TornLineReporter;
beforeEach(() => {
  reports = [];
  restore = setTornLineReporter((torn) => reports.push(torn));
});
afterEach(() => void setTornLineReporter(restore));

describe('reading JSONL whose last line is torn', () => {
  it.each([
    ['without a newline', TORN],
    ['with a newline', `${TORN}\n`],
    ['followed by blank lines', `${TORN}\n\n  \n`],
    ['of NUL bytes (a crash before the data reached the disk)', '\0\0\0\0\n'],
  ])('sets it aside %s, keeps the rest and reports it once', async (_, tail) => {
    const path = fresh();
    const intact = lines(record(1), record(2));
    writeFileSync(path, intact + tail);
    expect(await readJsonLines(path)).toEqual([record(1), record(2)]);
    expect(await readJsonLines(path)).toEqual([record(1), record(2)]);
    expect(reports).toEqual([{ path, line: 3, offset: Buffer.byteLength(intact), bytes: Buffer.byteLength(tail) }]);
    expect(await readJsonLinesWithTorn(path)).toEqual({ records: [record(1), record(2)], torn: reports[0] });
    expect(reports).toHaveLength(1);
  });

  it('keeps a complete last line that lost only its newline', async () => {
    const path = fresh();
    writeFileSync(path, lines(record(1)) + JSON.stringify(record(2)));
    expect(await readJsonLines(path)).toEqual([record(1), record(2)]);
    expect(reports).toEqual([]);
  });

  it('is an error, naming the file and the line, when a line that is not JSON has lines after it', async () => {
    const path = fresh();
    writeFileSync(path, lines(record(1)) + `${TORN}\n\n` + lines(record(2)));
    await expect(readJsonLines(path)).rejects.toThrow(`${path}: line 2 is not JSON`);
    writeFileSync(path, lines(record(1)) + TORN + lines(record(2), record(3))); // a record glued onto torn bytes, then another
    await expect(readJsonLines(path)).rejects.toThrow(`${path}: line 2 is not JSON`);
    expect(reports).toEqual([]);
  });
});

describe('appending after a torn last line', () => {
  it.each([
    ['without a newline', TORN],
    ['with a newline', `${TORN}\n`],
  ])('moves the torn line %s to <file>.torn and starts the record on a fresh line', async (_, tail) => {
    const path = fresh();
    const intact = lines(record(1), record(2));
    writeFileSync(path, intact + tail);
    await appendJsonLine(path, record(3));
    await appendJsonLine(path, record(4));
    expect(readFileSync(path, 'utf8')).toBe(intact + lines(record(3), record(4)));
    expect(readFileSync(`${path}.torn`, 'utf8')).toBe(`${TORN}\n`);
    expect(reports).toEqual([
      { path, line: 3, offset: Buffer.byteLength(intact), bytes: Buffer.byteLength(tail), movedTo: `${path}.torn` },
    ]);
    expect(await readJsonLines(path)).toEqual([1, 2, 3, 4].map(record));
    expect(reports).toHaveLength(1);
  });

  it('reports a torn line once when it is read and then moved', async () => {
    const path = fresh();
    writeFileSync(path, lines(record(1)) + TORN);
    await readJsonLines(path);
    await appendJsonLine(path, record(2));
    expect(reports).toHaveLength(1);
    expect(existsSync(`${path}.torn`)).toBe(true);
  });

  it('adds the missing newline of a complete last line, moving nothing', async () => {
    const path = fresh();
    writeFileSync(path, lines(record(1)) + JSON.stringify(record(2)));
    await appendJsonLine(path, record(3));
    expect(readFileSync(path, 'utf8')).toBe(lines(record(1), record(2), record(3)));
    expect(existsSync(`${path}.torn`)).toBe(false);
    expect(reports).toEqual([]);
  });

  it('finds the last line of a file whose lines are longer than a read of its tail', async () => {
    const path = fresh();
    const long = { type: 'session', system: 'y'.repeat(300_000) };
    writeFileSync(path, lines(long) + JSON.stringify(long).slice(0, 200_000));
    await appendJsonLine(path, record(1));
    expect(await readJsonLines(path)).toEqual([long, record(1)]);
    writeFileSync(path, lines(record(1), long));
    await appendJsonLine(path, record(2));
    expect(await readJsonLines(path)).toEqual([record(1), long, record(2)]);
    expect(reports).toHaveLength(1);
  });

  it('keeps every record of many appends at once in this process', async () => {
    const path = fresh();
    writeFileSync(path, lines(record(0)) + TORN);
    await Promise.all(Array.from({ length: 100 }, (_, i) => appendJsonLine(path, record(i + 1))));
    const read = await readJsonLines<{ n: number }>(path);
    expect(read.map((r) => r.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 101 }, (_, i) => i));
    expect(readFileSync(`${path}.torn`, 'utf8')).toBe(`${TORN}\n`);
  });

  it('keeps every record when several processes append to a file whose last line is torn (a shared ledger)', async () => {
    const path = fresh();
    writeFileSync(path, lines(record(0)) + TORN);
    const module = fileURLToPath(new URL('../../dist/run-store/json-files.js', import.meta.url));
    const writer = (id: number) =>
      new Promise<string>((resolve, reject) => {
        const code = `const { appendJsonLine } = await import(${JSON.stringify(module)});
          for (let i = 0; i < 50; i++) await appendJsonLine(${JSON.stringify(path)}, { type: 'attempt', n: ${id} * 100 + i });`;
        const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('exit', (status) => (status === 0 ? resolve(stderr) : reject(new Error(stderr))));
      });
    const stderr = await Promise.all([1, 2, 3, 4].map(writer));
    const read = await readJsonLines<{ n: number }>(path);
    const expected = [0, ...[1, 2, 3, 4].flatMap((id) => Array.from({ length: 50 }, (_, i) => id * 100 + i))];
    expect(read.map((r) => r.n).sort((a, b) => a - b)).toEqual(expected);
    expect(readFileSync(`${path}.torn`, 'utf8')).toBe(`${TORN}\n`);
    expect(stderr.join('').match(/was cut short/g)).toHaveLength(1);
    expect(existsSync(`${path}.repair-lock`)).toBe(false);
  });
});
