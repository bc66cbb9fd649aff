import type { Framing } from './framing.js';

/** The opening sentences every problem rung (R1–R3) shares: the stream, the hidden types and N's disclosure. */
export function problemOpening(framing: Framing): string[] {
  return [
    `You will be shown ${framing.horizon} numeric problems, one at a time. Each problem has a hidden type.`,
    framing.announceN
      ? `Exactly ${framing.classCount} types occur, but you are not told how often each type occurs; you learn the rates only from the problems you have seen.`
      : 'You are not told how many types there are or how often each occurs; you learn the rates only from the problems you have seen.',
  ];
}
