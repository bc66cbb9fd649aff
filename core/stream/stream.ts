import type { FamilyName, Inputs } from '../families/family.js';
import type { Role } from './class-sequence.js';
import type { StreamConfig } from './stream-config.js';

/** One problem of a stream. `t` is 1-based, as in the paper. */
export interface StreamItem {
  readonly t: number;
  readonly family: FamilyName;
  readonly role: Role;
  /** Index of the cover story the text was rendered with. */
  readonly cover: number;
  readonly text: string;
  readonly inputs: Inputs;
  readonly answer: number;
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
