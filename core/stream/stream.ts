import { FAMILY_NAMES, type FamilyName, type Inputs } from '../families/family.js';
import type { Role } from './class-sequence.js';
import type { StreamConfig } from './stream-config.js';

/** One problem of a stream. `t` is 1-based, as in the paper. */
export interface StreamItem {
  readonly t: number;
  readonly family: FamilyName;
  readonly role: Role;
  /** Index of the cover story the text was rendered with; null for an item read from the paper's stream files (its text is theirs). */
  readonly cover: number | null;
  readonly text: string;
  readonly inputs: Inputs;
  /** The exact gold answer as a decimal integer (golds go beyond 2^53, so never a JSON number). */
  readonly answer: string;
}

/** A full stream: what `allocbench stream --json` prints and run directories store. */
export interface Stream {
  readonly seed: number;
  readonly config: StreamConfig;
  readonly hot: readonly FamilyName[];
  readonly trap: readonly FamilyName[];
  readonly items: readonly StreamItem[];
  readonly hash: string;
}

/** The hidden class of each item: its family's index in FAMILY_NAMES (the paper's class_id). */
export function classSequence(stream: Pick<Stream, 'items'>): number[] {
  return stream.items.map((item) => FAMILY_NAMES.indexOf(item.family));
}
