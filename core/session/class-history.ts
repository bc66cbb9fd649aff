/**
 * Tracks the class history the way an agent sees it: each class gets a label
 * at its first appearance (0, 1, 2, ...), and occurrences are counted per label.
 * Class ids are small non-negative integers (family indices).
 */
export class ClassHistory {
  /** Label per class id; holes for classes not seen yet. */
  private readonly labels: number[] = [];
  /** Occurrences so far per label. */
  readonly counts: number[] = [];
  /**
   * Turn (1-based) of each label's first appearance. Replaced, never changed
   * in place, when a label appears (at most once per class), so an observation
   * may hold it.
   */
  firstTurns: readonly number[] = [];
  private items = 0;

  /** Records the next item's class; returns its label and occurrence number (1-based). */
  record(classId: number): { label: number; occurrence: number } {
    this.items++;
    let label = this.labels[classId];
    if (label === undefined) {
      label = this.counts.length;
      this.labels[classId] = label;
      this.counts.push(0);
      this.firstTurns = [...this.firstTurns, this.items];
    }
    const occurrence = (this.counts[label] as number) + 1;
    this.counts[label] = occurrence;
    return { label, occurrence };
  }
}
