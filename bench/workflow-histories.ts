import { Client, Connection } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import { startDevServer } from '../infra/dev-server.js';
import { freePort } from '../infra/ports.js';

// CommonJS: no named ESM exports.
const { History, HistoryEvent } = proto.temporal.api.history.v1;
const { EventType } = proto.temporal.api.enums.v1;

type Event = temporal.api.history.v1.IHistoryEvent;

/** Where one model call's time went on the server's side, from its history events. */
export interface StepTiming {
  /** The workflow task that scheduled the call: from scheduled to completed (dispatch plus the workflow's own work). */
  readonly workflowTaskMs: number;
  /** The model activity waiting for a worker: scheduled → started. */
  readonly dispatchMs: number;
  /** The model activity running: started → completed (the model call, run-store reads and writes, the record). */
  readonly activityMs: number;
}

/** A workflow's history over every run of its continue-as-new chain. */
export interface WorkflowHistory {
  readonly runs: number;
  readonly bytes: number;
  /** The largest single run: what Temporal holds and a worker replays at once. */
  readonly largestRunBytes: number;
  readonly events: number;
  readonly byType: ReadonlyMap<string, { readonly events: number; readonly bytes: number }>;
  /** One per model call (takeStep), in order. */
  readonly steps: readonly StepTiming[];
  /** Every workflow task: from scheduled to completed, in ms (dispatch to the worker plus the workflow's own work). */
  readonly workflowTasks: readonly number[];
  /** When the server started the chain's first run (epoch ms): the workflow's start as Temporal records it. */
  readonly startedMs: number;
}

const eventMs = (event: Event) => Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

function workflowTaskTimings(events: readonly Event[]): number[] {
  const byId = new Map(events.map((event) => [Number(event.eventId), event]));
  return events.flatMap((event) => {
    const scheduled = byId.get(Number(event.workflowTaskCompletedEventAttributes?.scheduledEventId ?? -1));
    return event.workflowTaskCompletedEventAttributes && scheduled ? [eventMs(event) - eventMs(scheduled)] : [];
  });
}

function stepTimings(events: readonly Event[]): StepTiming[] {
  const byId = new Map(events.map((event) => [Number(event.eventId), event]));
  const startedOf = new Map<number, Event>();
  const timings: StepTiming[] = [];
  for (const event of events) {
    const started = event.activityTaskStartedEventAttributes;
    if (started) startedOf.set(Number(started.scheduledEventId), event);
    const done = event.activityTaskCompletedEventAttributes;
    if (!done) continue;
    const scheduled = byId.get(Number(done.scheduledEventId));
    const start = startedOf.get(Number(done.scheduledEventId));
    const attributes = scheduled?.activityTaskScheduledEventAttributes;
    if (!scheduled || !start || attributes?.activityType?.name !== 'takeStep') continue;
    const completion = byId.get(Number(attributes.workflowTaskCompletedEventId));
    const task = completion && byId.get(Number(completion.workflowTaskCompletedEventAttributes?.scheduledEventId));
    timings.push({
      workflowTaskMs: task && completion ? eventMs(completion) - eventMs(task) : NaN,
      dispatchMs: eventMs(start) - eventMs(scheduled),
      activityMs: eventMs(event) - eventMs(start),
    });
  }
  return timings;
}

/**
 * The histories of these workflows, read from a run's embedded Temporal
 * server (its SQLite file), started again for the purpose and stopped after.
 */
export async function readWorkflowHistories(dbFile: string, workflowIds: readonly string[]): Promise<Map<string, WorkflowHistory>> {
  const server = await startDevServer({ dbFile, port: await freePort(), uiPort: await freePort() });
  const histories = new Map<string, WorkflowHistory>();
  try {
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection, namespace: server.namespace });
      for (const workflowId of workflowIds) {
        const history = {
          runs: 0,
          bytes: 0,
          largestRunBytes: 0,
          events: 0,
          byType: new Map<string, { events: number; bytes: number }>(),
          steps: [] as StepTiming[],
          workflowTasks: [] as number[],
          startedMs: NaN,
        };
        let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
        while (runId) {
          const fetched = await client.workflow.getHandle(workflowId, runId).fetchHistory();
          const events: Event[] = fetched.events ?? [];
          history.runs++;
          const bytes = History.encode(fetched).finish().length;
          history.bytes += bytes;
          history.largestRunBytes = Math.max(history.largestRunBytes, bytes);
          history.events += events.length;
          for (const event of events) {
            const type = (EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(/^EVENT_TYPE_/, '');
            const entry = history.byType.get(type) ?? { events: 0, bytes: 0 };
            history.byType.set(type, { events: entry.events + 1, bytes: entry.bytes + HistoryEvent.encode(event).finish().length });
          }
          history.steps.unshift(...stepTimings(events));
          history.workflowTasks.unshift(...workflowTaskTimings(events));
          // Runs are read newest first: the last one read is the first.
          if (events[0]) history.startedMs = eventMs(events[0]);
          runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
        }
        histories.set(workflowId, history);
      }
    } finally {
      await connection.close();
    }
  } finally {
    await server.stop();
  }
  return histories;
}
