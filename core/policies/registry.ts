import { InputError } from '../errors.js';
import type { SessionRules } from '../session/session-state.js';
import { bayesPolicy } from './bayes.js';
import { commitAtK } from './commit-at-k.js';
import { hindsightPolicy } from './hindsight.js';
import type { HotTrapRecipe } from './hot-trap.js';
import { optimalPolicy } from './optimal.js';
import type { Policy } from './policy.js';

export const POLICY_NAMES = ['eager', 'commit-at-k', 'bayes', 'optimal', 'hindsight'] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** A reference policy and its parameters, as named on the command line. */
export type PolicySpec =
  | { readonly name: 'eager' }
  | { readonly name: 'commit-at-k'; readonly k: number }
  | { readonly name: 'bayes'; readonly alpha: number }
  /** The generator's recipe it knows; unset fields are the paper's (8 classes, 3 hot sharing 0.85, a trap among the first 3). */
  | { readonly name: 'optimal'; readonly recipe?: Partial<HotTrapRecipe> }
  | { readonly name: 'hindsight' };

export function parsePolicySpec(name: string, options: { k?: number; alpha?: number } = {}): PolicySpec {
  switch (name) {
    case 'eager':
    case 'optimal':
    case 'hindsight':
      return { name };
    case 'commit-at-k':
      if (options.k === undefined) throw new InputError('--k: required by the commit-at-k policy');
      return { name, k: options.k };
    case 'bayes':
      return { name, alpha: options.alpha ?? 1 };
    default:
      throw new InputError(`unknown policy '${name}' (known: ${POLICY_NAMES.join(', ')})`);
  }
}

export function describePolicy(spec: PolicySpec): string {
  if (spec.name === 'commit-at-k') return `commit-at-${spec.k}`;
  if (spec.name === 'bayes') return `bayes(alpha=${spec.alpha})`;
  return spec.name;
}

/**
 * Returns a builder of the policy for each stream. Online policies are built
 * once and shared (the Bayesian comparator keeps a memo across streams); the
 * offline hindsight reference is built per stream, since it reads the stream.
 */
export function policyFactory(spec: PolicySpec, rules: SessionRules): (classes: ArrayLike<number>) => Policy {
  switch (spec.name) {
    case 'eager': {
      const policy = commitAtK(1);
      return () => policy;
    }
    case 'commit-at-k': {
      const policy = commitAtK(spec.k);
      return () => policy;
    }
    case 'bayes': {
      const policy = bayesPolicy(spec.alpha);
      return () => policy;
    }
    case 'optimal': {
      const policy = optimalPolicy(spec.recipe);
      return () => policy;
    }
    case 'hindsight':
      return (classes) => hindsightPolicy(classes, rules);
  }
}
