/**
 * The framing rungs (paper §3.3) and the keep/pass tool-call probe (F.4).
 * R0: abstract urn, free-text KEEP/PASS. probe: the urn with zero-argument
 * keep/pass tools. R1: numeric problems, zero-argument claim/skip tools.
 * R2: claims that require a `code` string. R3: reusable scripts that are
 * written, executed and rerun (core/scripts/).
 */
export const RUNGS = ['R0', 'R1', 'R2', 'R3', 'probe'] as const;
export type Rung = (typeof RUNGS)[number];

/** Maximum output tokens per turn (Appendix B.4); the probe is the urn, like R0. */
export const MAX_OUTPUT_TOKENS: Readonly<Record<Rung, number>> = { R0: 512, probe: 512, R1: 1500, R2: 2500, R3: 4096 };

/** Rungs that show the urn (and so take a reskin) rather than numeric problems. */
export function isUrnRung(rung: Rung): rung is 'R0' | 'probe' {
  return rung === 'R0' || rung === 'probe';
}

/** The rungs played as one claim/skip-style decision per unheld item (core/session); R3 plays every item (core/scripts). */
export type DecisionRung = Exclude<Rung, 'R3'>;

/**
 * The split agent, R3's two-agent form (the paper's discussion): a planner
 * that only decides whether to build and a builder that writes and runs the
 * scripts. Each role is told what this rung tells a single agent: the planner
 * claims or skips as at R1, the builder plays R3's loop.
 */
export const SPLIT_ROLE_RUNGS = { planner: 'R1', builder: 'R3' } as const satisfies Readonly<Record<string, Rung>>;
export type SplitRole = keyof typeof SPLIT_ROLE_RUNGS;
