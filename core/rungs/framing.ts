import type { Reskin } from './vocabulary.js';
import type { Rung, SplitRole } from './rung.js';

/** Everything that shapes what the model is told, apart from the stream itself. */
export interface Framing {
  readonly rung: Rung;
  /** T. */
  readonly horizon: number;
  /** B. */
  readonly budget: number;
  /** K, the visible one-time charge per commitment. */
  readonly charge: number;
  /** An economic cell: the charge rule is stated, K = 0 included. */
  readonly economic: boolean;
  /** N, the number of classes. */
  readonly classCount: number;
  /** Whether the prompt discloses N. */
  readonly announceN: boolean;
  /** Urn vocabulary (R0 and the probe). */
  readonly reskin: Reskin;
  /** The session token cap, which R3's prompt states; null (or absent) for none. */
  readonly tokenCap?: number | null;
  /** A split agent's role (absent for a single agent): R3's builder is told of the planner that hands it problems. */
  readonly role?: SplitRole;
}
