/**
 * Whether a response's reported model is the one requested: the same name, or
 * a dated snapshot of it (an alias such as gpt-5.6-sol answering as
 * gpt-5.6-sol-2026-05-01). Recorded per attempt, checked in the summary.
 */
export function identityMatches(requested: string, reported: string): boolean {
  return reported === requested || reported.startsWith(`${requested}-`);
}
