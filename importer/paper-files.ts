import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InputError } from '../core/errors.js';
import { parseJsonExact } from '../run-store/json-files.js';

/*
 * The authors' per-seed files, as far as the import reads them. Schemas are
 * loose: the formats carry more keys than these, and other arms add their own.
 * Integers beyond 2^53 arrive as BigInt (parseJsonExact).
 */

const count = z.number().int().min(0);
const exactInteger = z.union([z.number(), z.bigint()]);

/**
 * One provider call's usage. The authors' harness writes all five counts, or
 * an empty object `{}` where the call failed its retries or reported nothing:
 * every count may be missing.
 */
const tokens = count.nullable().optional();
const paperUsageSchema = z.looseObject({
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens,
  cache_write_tokens: tokens,
  reasoning_tokens: tokens,
  /** R3: the 0-based problem the call was made on. */
  problem: count.optional(),
  response_model: z.string().nullable().optional(),
});
export type PaperUsage = z.infer<typeof paperUsageSchema>;

const paperMessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string().nullable().optional() }) }))
    .nullable()
    .optional(),
});
export type PaperMessage = z.infer<typeof paperMessageSchema>;

const settingsSchema = z.looseObject({
  provider: z.string().optional(),
  resolved_model: z.string().optional(),
  requested_model: z.string().optional(),
  announce_n: z.boolean().optional(),
  tool_choice: z.string().nullable().optional(),
  reasoning_effort: z.string().nullable().optional(),
  temperature: z.number().nullable().optional(),
  max_completion_tokens: count.optional(),
  unit_cap_usd: z.number().nullable().optional(),
  global_cap_usd: z.number().nullable().optional(),
  magnitude: count.optional(),
  budget: count.optional(),
  B: count.optional(),
  K: z.number().min(0).optional(),
  tool_schema_version: z.string().optional(),
  benchmark_version: z.string().optional(),
  class_bound: z.boolean().optional(),
  collection_kind: z.string().optional(),
  stream_sha256: z.string().optional(),
});
export type PaperSettings = z.infer<typeof settingsSchema>;

export const paperDecisionSessionSchema = z.looseObject({
  seed: count,
  model_key: z.string().min(1),
  budget: count.min(1),
  collected: count,
  unparsed: count,
  kept: z.record(z.string(), count).optional(),
  claimed: z.record(z.string(), count).optional(),
  vocab: z.string().optional(),
  termination: z.string().optional(),
  tool_choice: z.string().nullable().optional(),
  K: z.number().min(0).optional(),
  net_score: z.number().optional(),
  provider: z.string().optional(),
  resolved_model: z.string().optional(),
  actual_cost_usd: z.number().optional(),
  config: settingsSchema.optional(),
  transcript: z.array(
    z.looseObject({
      slot: count,
      class_id: count,
      class_position: count.min(1),
      decision: z.enum(['KEEP', 'PASS', 'CLAIM_SOLVER', 'SKIP_SOLVER']),
      /** How the harness read the reply (importer/stored-reading.ts); any string, since an unknown one is reported, not refused. */
      how: z.string(),
      prompt: z.string().optional(),
      reply: z.string().nullable().optional(),
      response_model: z.string().nullable().optional(),
    }),
  ),
  turn_usages: z.array(paperUsageSchema),
  messages: z.array(paperMessageSchema).optional(),
});
export type PaperDecisionSession = z.infer<typeof paperDecisionSessionSchema>;

export const paperScriptSessionSchema = z.looseObject({
  model_key: z.string().min(1),
  model: z.string().optional(),
  budget: count.min(1),
  n_correct: count,
  n_scripts_written: count,
  n_cross_class_run_refused: count.optional(),
  /** Runs the harness started, failing ones included, refused ones not (only successful runs are in records). */
  n_run_calls: count.optional(),
  n_refused_tool_calls: count.optional(),
  n_forced_advances: count.optional(),
  n_malformed_tool_calls: count.optional(),
  n_unknown_tool_calls: count.optional(),
  n_pruned_no_tool: count.optional(),
  token_cap: count.nullable().optional(),
  spent_tokens: count.optional(),
  hit_cap: z.boolean().optional(),
  stopped_on_budget: z.boolean().optional(),
  /** The harness's safety stops: 'missing_usage' (a call reported no usage), 'unit_cost_cap'; null otherwise. */
  stop_reason: z.string().nullable().optional(),
  provider: z.string().optional(),
  resolved_model: z.string().optional(),
  actual_cost_usd: z.number().optional(),
  records: z.array(
    z.looseObject({
      item_idx: count,
      scripts_authored: z.array(z.string()).optional(),
      scripts_run: z.array(z.string()).optional(),
      /** A run's parsed output: a float (Python's Infinity arrives as the string 'Infinity'), or null. */
      runs: z.array(z.looseObject({ script: z.string(), ret: z.union([exactInteger, z.string()]).nullable().optional() })).optional(),
      submitted: z.boolean(),
      answer: z.union([exactInteger, z.string()]).nullable().optional(),
      correct: z.boolean(),
      used_script: z.boolean().optional(),
    }),
  ),
  transcript: z.array(paperMessageSchema),
  turn_usages: z.array(paperUsageSchema.extend({ tools: z.array(z.string()).optional() })),
});
export type PaperScriptSession = z.infer<typeof paperScriptSessionSchema>;

export const paperSettingsSchema = settingsSchema;

/** A file read for import: its bytes' SHA-256 (provenance) and its text. */
export interface SourceFile {
  readonly path: string;
  readonly sha256: string;
  readonly text: string;
}

export async function readSourceFile(path: string): Promise<SourceFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new InputError(`${path}: unreadable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return { path, sha256: createHash('sha256').update(bytes).digest('hex'), text: bytes.toString('utf8') };
}

/** "where: what was expected", from the first zod issue. */
function describeIssue(error: z.ZodError, expected: string): string {
  const issue = error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  return `${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'} (expected ${expected})`;
}

/**
 * The authors' files come from Python's json module, which writes the bare
 * tokens NaN, Infinity and -Infinity (a script's float overflow, say). They
 * are not JSON: outside strings they are read as the strings 'NaN',
 * 'Infinity' and '-Infinity'.
 */
export function quotePythonTokens(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    const token = ['-Infinity', 'Infinity', 'NaN'].find((name) => text.startsWith(name, i));
    if (token) {
      out += `"${token}"`;
      i += token.length - 1;
    } else out += char;
  }
  return out;
}

/** parseJsonExact, and on failure once more with Python's non-finite tokens quoted. */
function parsePaperJson(text: string): unknown {
  try {
    return parseJsonExact(text);
  } catch (error) {
    if (!/NaN|Infinity/.test(text)) throw error;
    return parseJsonExact(quotePythonTokens(text));
  }
}

/** Parses a whole-JSON file against a schema; any failure is one line naming the file and what was expected. */
export function parseSourceJson<T>(file: SourceFile, schema: z.ZodType<T>, expected: string): T {
  let raw: unknown;
  try {
    raw = parsePaperJson(file.text);
  } catch (error) {
    throw new InputError(`${file.path}: not JSON (${(error as Error).message.split('\n')[0]}); expected ${expected}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new InputError(`${file.path}: ${describeIssue(parsed.error, expected)}`);
  return parsed.data;
}

/** Parses a JSONL file line by line; a torn or invalid line is one error naming the file and the line. */
export function parseSourceJsonLines<T>(file: SourceFile, schema: z.ZodType<T>, expected: string): T[] {
  const lines = file.text.split('\n');
  const records: T[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file.path}:${index + 1}`;
    let raw: unknown;
    try {
      raw = parsePaperJson(line);
    } catch (error) {
      const torn = index === lines.length - 1 && !file.text.endsWith('\n');
      throw new InputError(
        `${where}: ${torn ? 'truncated line' : 'not JSON'} (${(error as Error).message.split('\n')[0]}); expected ${expected}`,
      );
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new InputError(`${where}: ${describeIssue(parsed.error, expected)}`);
    records.push(parsed.data);
  });
  if (records.length === 0) throw new InputError(`${file.path}: empty; expected ${expected}`);
  return records;
}
