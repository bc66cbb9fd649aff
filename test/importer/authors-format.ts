import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { nextDecisionPoint } from '../../core/session/replay.js';
import { DEFAULT_STREAM_CONFIG } from '../../core/stream/stream-config.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { classSequence, type Stream } from '../../core/stream/stream.js';

/*
 * Seed folders in the paper authors' formats, written by the tests from our
 * own streams and scripted replies (never copied from their files): the
 * values their harness can record (the `how` readings, empty usage objects,
 * Python's non-finite tokens) in the shapes its writers use.
 */

/** JSON text where "@int:<digits>" strings become bare integers (golds and answers beyond 2^53), as Python writes them. */
export const pythonJson = (value: unknown) => JSON.stringify(value, null, 1).replace(/"@int:(-?\d+)"/g, '$1');
export const bigInt = (digits: string) => `@int:${digits}`;

export function authorsStream(seed: number): { stream: Stream; items: unknown[] } {
  const stream = generateStream(seed, DEFAULT_STREAM_CONFIG);
  const classes = classSequence(stream);
  const sizes = classes.map((c) => classes.filter((other) => other === c).length);
  const seen = new Map<number, number>();
  const items = stream.items.map((item, index) => {
    const classId = FAMILY_NAMES.indexOf(item.family);
    const position = (seen.get(classId) ?? 0) + 1;
    seen.set(classId, position);
    return {
      family: item.family,
      magnitude: stream.config.magnitude,
      inputs: item.inputs,
      gold: bigInt(item.answer),
      question: item.text,
      slot_index: index,
      class_id: classId,
      class_size: sizes[index],
      class_position: position,
      role: item.role,
      rate: item.role === 'hot' ? 0.85 / 3 : 0.15 / 5,
    };
  });
  return { stream, items };
}

/** One decision turn as the authors' harness stores it: how it read the reply, the stored decision, the reply and its usage. */
export interface ScriptedTurn {
  readonly how: string;
  readonly commit: boolean;
  readonly reply: string;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: string }[];
  /** The usage entries of the turn's calls; one full entry by default. */
  readonly usages?: readonly object[];
}

const FULL_USAGE = { input_tokens: 300, output_tokens: 40, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
const DECISIONS = {
  R0: ['KEEP', 'PASS'],
  probe: ['KEEP', 'PASS'],
  R1: ['CLAIM_SOLVER', 'SKIP_SOLVER'],
  R2: ['CLAIM_SOLVER', 'SKIP_SOLVER'],
};
const UNPARSED_CLEAN = new Set(['tag', 'lead', 'scan', 'tool']);

/**
 * Writes seed_<seed>/{stream.json, meta.json, session.json} of a decision
 * arm: the turns play the stream's decision points in order (then every
 * later point is a plain pass), with the prompts, messages, usage list and
 * counts the authors' writers keep.
 */
export function writeDecisionSeed(
  armDir: string,
  seed: number,
  rung: 'R0' | 'probe' | 'R1' | 'R2',
  turns: readonly ScriptedTurn[],
  extra: Record<string, unknown> = {},
): string {
  const { stream, items } = authorsStream(seed);
  const classes = classSequence(stream);
  const dir = join(armDir, `seed_${seed}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'stream.json'), pythonJson(items));
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ N: 8, T: 60, budget: 3, seed, magnitude: 100 }));
  const setting = { budget: 3, charge: 0, classCount: FAMILY_NAMES.length };
  const [commitWord, passWord] = DECISIONS[rung];
  const decided: { action: 'commit' | 'pass' }[] = [];
  const transcript: object[] = [];
  const messages: object[] = [];
  const usages: object[] = [];
  const kept: Record<string, number> = {};
  for (let point = nextDecisionPoint(classes, setting, decided); point; point = nextDecisionPoint(classes, setting, decided)) {
    const pass: ScriptedTurn =
      rung === 'R0'
        ? { how: 'tag', commit: false, reply: 'DECISION: PASS' }
        : { how: 'tool', commit: false, reply: '', toolCalls: [{ name: rung === 'probe' ? 'pass' : 'skip_solver', arguments: '{}' }] };
    const turn = turns[decided.length] ?? pass;
    const calls = (turn.toolCalls ?? []).map((call, i) => ({
      id: `call_${point?.t}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const prompt = `Item ${point.t} of 60.`;
    transcript.push({
      slot: point.t - 1,
      class_id: point.classId,
      class_position: point.observation.occurrence,
      prompt,
      decision: turn.commit ? commitWord : passWord,
      how: turn.how,
      reply: turn.reply,
    });
    messages.push({ role: 'user', content: prompt });
    // Re-asked turns (empty-fence retries) keep one reminder before the last reply, as the authors' writer prunes them.
    if ((turn.usages?.length ?? 1) > 1) messages.push({ role: 'user', content: 'Reply with a tool call.' });
    messages.push({ role: 'assistant', content: turn.reply, ...(calls.length > 0 && { tool_calls: calls }) });
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: '{"ok": true}' });
    usages.push(...(turn.usages ?? [FULL_USAGE]));
    if (turn.commit) kept[String(point.classId)] = point.observation.occurrence;
    decided.push({ action: turn.commit ? 'commit' : 'pass' });
  }
  const collected = Object.entries(kept).reduce((sum, [classId, position]) => {
    const size = classes.filter((c) => c === Number(classId)).length;
    return sum + size - position + 1;
  }, 0);
  const unparsed = transcript.filter((entry) => !UNPARSED_CLEAN.has((entry as { how: string }).how)).length;
  const session = {
    seed,
    model_key: 'tiny-model',
    [rung === 'R0' || rung === 'probe' ? 'kept' : 'claimed']: kept,
    collected,
    budget: 3,
    unparsed,
    turn_usages: usages,
    transcript,
    messages,
    ...extra,
  };
  const path = join(dir, 'session.json');
  writeFileSync(path, JSON.stringify(session));
  return path;
}
