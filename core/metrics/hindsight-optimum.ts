/**
 * The exact hindsight optimum (paper §3.4, Appendix E): with charge K, commit at
 * first sight to the at most B classes with the largest positive count - K.
 * At K = 0 it is the sum of the B largest class counts.
 */

/** [classId, count] per class, in order of first appearance. Class ids are small non-negative integers. */
export function classCounts(classes: ArrayLike<number>): [number, number][] {
  const slotOf: number[] = [];
  const counts: [number, number][] = [];
  for (let t = 0; t < classes.length; t++) {
    const classId = classes[t] as number;
    const slot = slotOf[classId];
    if (slot === undefined) {
      slotOf[classId] = counts.length;
      counts.push([classId, 1]);
    } else (counts[slot] as [number, number])[1]++;
  }
  return counts;
}

/**
 * Classes the optimum commits to: largest count first; between classes of
 * equal count, the larger class id (the family's index), as the paper authors'
 * optimum breaks ties. The tie never changes the optimum's utility, only which
 * first occurrences it commits on (its hazard, Appendix E's figure).
 */
export function optimalClasses(classes: ArrayLike<number>, budget: number, charge: number): number[] {
  return chosenCounts(classes, budget, charge).map(([classId]) => classId);
}

/** Best net utility over at most B classes. */
export function hindsightOptimum(classes: ArrayLike<number>, budget: number, charge: number): number {
  return chosenCounts(classes, budget, charge).reduce((sum, [, count]) => sum + count - charge, 0);
}

function chosenCounts(classes: ArrayLike<number>, budget: number, charge: number): [number, number][] {
  return classCounts(classes)
    .filter(([, count]) => count - charge > 0)
    .sort(([idA, a], [idB, b]) => b - a || idB - idA)
    .slice(0, budget);
}
