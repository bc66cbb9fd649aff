import { optimalClasses } from '../metrics/hindsight-optimum.js';
import type { SessionRules } from '../session/session-state.js';
import type { Policy } from './policy.js';

/**
 * The offline hindsight optimum as a policy, for reference: it knows the whole
 * stream and commits at first sight to the classes of `optimalClasses`.
 */
export function hindsightPolicy(classes: ArrayLike<number>, rules: SessionRules): Policy {
  const chosen = new Set(optimalClasses(classes, rules.budget, rules.charge));
  // Observations label classes by first appearance; translate the chosen classes to labels.
  const chosenLabels = new Set<number>();
  const seen = new Set<number>();
  for (let t = 0; t < classes.length; t++) {
    const c = classes[t] as number;
    if (seen.has(c)) continue;
    if (chosen.has(c)) chosenLabels.add(seen.size);
    seen.add(c);
  }
  return { name: 'hindsight', decide: (observation) => (chosenLabels.has(observation.label) ? 'commit' : 'pass') };
}
