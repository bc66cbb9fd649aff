import { ClassHistory } from './class-history.js';
import type { Observation } from './observation.js';
import {
  advance,
  remainingBudget,
  startSession,
  turnKind,
  type Action,
  type SessionSetting,
  type SessionState,
  type TurnKind,
} from './session-state.js';

/** The item just arrived, as the walk classified it. */
export interface Arrival {
  readonly t: number;
  readonly classId: number;
  readonly kind: TurnKind;
  readonly label: number;
  readonly occurrence: number;
}

/**
 * Walks a session item by item under the session rules, tracking what the
 * agent is shown: labels by first appearance, counts and held labels. Items
 * that need no decision are consumed on arrival; a decision turn waits for
 * `decide`. Shared by the in-process engine and the replay of recorded decisions.
 */
export class SessionWalk {
  private state: SessionState;
  private readonly history = new ClassHistory();
  private readonly heldLabels: number[] = [];
  private last: Arrival | undefined;

  constructor(
    private readonly setting: SessionSetting,
    private readonly horizon: number,
  ) {
    this.state = startSession(setting);
  }

  arrive(classId: number): Arrival {
    const { label, occurrence } = this.history.record(classId);
    const kind = turnKind(this.state, classId);
    this.last = { t: this.state.turn + 1, classId, kind, label, occurrence };
    if (kind !== 'decide') this.state = advance(this.state, classId);
    return this.last;
  }

  /**
   * What the agent observes at the pending decision. Without `snapshot` the
   * arrays are the walk's own, valid only until the next step (the engine's hot path).
   */
  observation(snapshot = false): Observation {
    const arrival = this.pending();
    return {
      turn: arrival.t,
      horizon: this.horizon,
      budget: this.setting.budget,
      remaining: remainingBudget(this.state),
      charge: this.setting.charge,
      classCount: this.setting.classCount,
      label: arrival.label,
      occurrence: arrival.occurrence,
      counts: snapshot ? [...this.history.counts] : this.history.counts,
      firstTurns: this.history.firstTurns,
      held: snapshot ? [...this.heldLabels] : this.heldLabels,
    };
  }

  decide(action: Action): void {
    const arrival = this.pending();
    if (action === 'commit') this.heldLabels.push(arrival.label);
    this.state = advance(this.state, arrival.classId, action);
  }

  private pending(): Arrival {
    if (this.last?.kind !== 'decide' || this.state.turn === this.last.t) throw new Error('no decision is pending');
    return this.last;
  }
}
