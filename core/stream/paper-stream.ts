import { z } from 'zod';
import { InputError } from '../errors.js';
import { FAMILY_NAMES, type FamilyName } from '../families/family.js';
import { getFamily } from '../families/registry.js';
import type { Role } from './class-sequence.js';
import type { StreamConfig } from './stream-config.js';
import type { Stream, StreamItem } from './stream.js';
import { streamHash } from './stream-hash.js';

/**
 * The paper's stream.json: the 60 items of one seed as the authors' harness
 * rendered them (family, inputs under upper-case keys, exact gold, question
 * text, hidden class id, role and rate). Other keys are kept by the format but
 * not needed here. Golds beyond 2^53 arrive as BigInt (read with parseJsonExact).
 */
const paperItemSchema = z.looseObject({
  family: z.enum(FAMILY_NAMES),
  magnitude: z.number().int().positive(),
  inputs: z.record(z.string(), z.unknown()),
  gold: z.union([z.number().int(), z.bigint()]),
  question: z.string().min(1),
  class_id: z.number().int(),
  role: z.enum(['hot', 'trap']),
  rate: z.number().min(0).max(1),
});

const paperStreamSchema = z.array(paperItemSchema).min(1);

/** The paper's generator forces a trap into the first B = 3 items (§3.2); the window is not stored, so it is inferred. */
const PAPER_TRAP_WINDOW = 3;

/**
 * Reads the paper's stream.json (already parsed) into a Stream. The class ids
 * must be the families' indices (the paper's and ours coincide), each family
 * keeps one role, and every item's inputs must be valid for its family.
 * Throws an InputError naming the item and what was expected.
 */
export function fromPaperStream(seed: number, raw: unknown): Stream {
  const parsed = paperStreamSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length
      ? `item ${Number(issue.path[0]) + 1}${issue.path.length > 1 ? `.${issue.path.slice(1).join('.')}` : ''}`
      : 'the file';
    throw new InputError(
      `${where}: ${issue?.message ?? 'invalid'} (expected the paper's stream.json: a list of items with family, inputs, gold, question, class_id and role)`,
    );
  }
  const roles = new Map<FamilyName, Role>();
  const magnitude = parsed.data[0]?.magnitude ?? 100;
  const items = parsed.data.map((item, index): StreamItem => {
    const where = `item ${index + 1}`;
    if (item.class_id !== FAMILY_NAMES.indexOf(item.family)) {
      throw new InputError(`${where}: class_id ${item.class_id} is not ${item.family}'s (expected ${FAMILY_NAMES.indexOf(item.family)})`);
    }
    if ((roles.get(item.family) ?? item.role) !== item.role) throw new InputError(`${where}: ${item.family} is both hot and trap`);
    roles.set(item.family, item.role);
    if (item.magnitude !== magnitude)
      throw new InputError(`${where}: magnitude ${item.magnitude} differs from the first item's ${magnitude}`);
    let inputs;
    try {
      inputs = getFamily(item.family).parseInputs(item.inputs);
    } catch (error) {
      throw new InputError(`${where}: ${(error as Error).message}`);
    }
    return { t: index + 1, family: item.family, role: item.role, cover: null, text: item.question, inputs, answer: String(item.gold) };
  });
  const hot = FAMILY_NAMES.filter((name) => roles.get(name) === 'hot');
  const trap = FAMILY_NAMES.filter((name) => roles.get(name) !== 'hot');
  const hotRates = new Map(parsed.data.filter((item) => item.role === 'hot').map((item) => [item.family, item.rate]));
  const firstTrap = items.findIndex((item) => item.role === 'trap') + 1;
  const config: StreamConfig = {
    length: items.length,
    budget: firstTrap > 0 && firstTrap <= PAPER_TRAP_WINDOW ? PAPER_TRAP_WINDOW : Math.max(1, firstTrap),
    hotCount: hot.length,
    hotMass: Math.round([...hotRates.values()].reduce((sum, rate) => sum + rate, 0) * 1e6) / 1e6,
    magnitude,
  };
  const body = { seed, config, hot, trap, items };
  return { ...body, hash: streamHash(body) };
}
