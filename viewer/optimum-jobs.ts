import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../infra/project-root.js';
import type { DecisionRecord } from '../core/session/session-record.js';
import type { SummaryCore } from '../analysis/run-results.js';
import type { OptimumSetting, TurnOptimum } from './turn-optimum.js';

/** What the optimum's thread is asked. */
export type OptimumJob =
  | {
      readonly kind: 'turns';
      readonly classes: readonly number[];
      readonly setting: OptimumSetting;
      readonly decisions: readonly DecisionRecord[];
    }
  | {
      readonly kind: 'nets';
      readonly location: string;
      readonly summaries: readonly Pick<SummaryCore, 'sessionKey' | 'spec' | 'termination'>[];
    };

/** A job's answer as a page sees it: not yet there, there, or why it cannot be. */
export type Outcome<T> =
  | { readonly state: 'computing' }
  | { readonly state: 'done'; readonly value: T }
  | { readonly state: 'failed'; readonly error: string };

/**
 * The viewer's side of the optimum's thread (optimum-worker.ts): each job is
 * asked once per key and its outcome kept, so a page that polls sees
 * 'computing' until the thread answers. The thread starts at the first job.
 */
export class OptimumJobs {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: { result?: unknown; error?: string }) => void>();
  private readonly outcomes = new Map<string, Outcome<unknown>>();

  turns(key: string, job: Extract<OptimumJob, { kind: 'turns' }>): Outcome<TurnOptimum[]> {
    return this.outcome(key, job) as Outcome<TurnOptimum[]>;
  }

  /** policy/optimal's net by session key. */
  nets(key: string, job: Extract<OptimumJob, { kind: 'nets' }>): Outcome<Map<string, number>> {
    const outcome = this.outcome(key, job) as Outcome<[string, number][]>;
    return outcome.state === 'done' ? { state: 'done', value: new Map(outcome.value) } : outcome;
  }

  /** Ends the thread (the server is closing). */
  async close(): Promise<void> {
    await this.worker?.terminate();
  }

  private outcome(key: string, job: OptimumJob): Outcome<unknown> {
    const known = this.outcomes.get(key);
    if (known) return known;
    this.outcomes.set(key, { state: 'computing' });
    void this.ask(job).then((answer) =>
      this.outcomes.set(
        key,
        answer.error === undefined ? { state: 'done', value: answer.result } : { state: 'failed', error: answer.error },
      ),
    );
    return { state: 'computing' };
  }

  private ask(job: OptimumJob): Promise<{ result?: unknown; error?: string }> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ id, job });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(join(projectRoot(), 'dist', 'viewer', 'optimum-worker.js'), { execArgv: [] });
    worker.unref();
    worker.on('message', (message: { id: number; result?: unknown; error?: string }) => {
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    });
    worker.on('error', (error) => {
      // A thread that died (out of memory, say) answers every job it held with why; the next job starts a new one.
      for (const resolve of this.waiting.values()) resolve({ error: error.message.split('\n')[0] ?? 'the optimum thread failed' });
      this.waiting.clear();
      this.worker = undefined;
    });
    this.worker = worker;
    return worker;
  }
}
