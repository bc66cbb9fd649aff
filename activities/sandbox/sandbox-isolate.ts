import ivm from 'isolated-vm';
import { PRELUDE } from './isolate-prelude.js';
import { SCRIPT_ERROR_KINDS, type JsonValue, type ScriptErrorKind, type ScriptOutcome } from '../../core/scripts/script-outcome.js';

/** A run's outcome before its clocks are stamped. */
export type RunResult = WithoutClocks<ScriptOutcome>;
type WithoutClocks<T> = T extends unknown ? Omit<T, 'ms' | 'cpuMs'> : never;

const FILENAME = 'solution.js';

/**
 * One isolate with its prelude compiled once. Each run gets a fresh context, so
 * nothing a script does to globals or prototypes reaches the next run. Time
 * is its supervisor's to limit (kill); execute rejects only when the isolate
 * itself fails (killed, out of memory), and failed() then says which.
 */
export class SandboxIsolate {
  private readonly isolate: ivm.Isolate;
  private prelude: ivm.Script | undefined;
  private catastrophe: string | undefined;
  private killed = false;
  /** Settles when V8 loses the isolate (out of memory): its run will never settle. */
  readonly lost: Promise<void>;

  constructor(readonly memoryMb: number) {
    let markLost = () => {};
    this.lost = new Promise((resolve) => (markLost = resolve));
    this.isolate = new ivm.Isolate({
      memoryLimit: memoryMb,
      // Without a handler a V8 out-of-memory aborts the process; with one the isolate's
      // thread is parked for good and the host lives on.
      onCatastrophicError: (message) => {
        this.catastrophe = message;
        markLost();
      },
    });
  }

  async execute(code: string, inputsJson: string): Promise<RunResult> {
    this.prelude ??= await this.isolate.compileScript(PRELUDE, { filename: 'prelude.js' });
    const context = await this.isolate.createContext();
    try {
      const finish = await this.prelude.run(context, { reference: true });
      const reply = (inputs: string | null) => finish.apply(undefined, [inputs], { result: { promise: true, copy: true } });
      let script: ivm.Script;
      try {
        script = await this.isolate.compileScript(code, { filename: FILENAME });
      } catch (error) {
        if (this.failed()) throw error;
        return { ok: false, kind: 'compile', error: describeHostError(error), logs: '' };
      }
      try {
        // As a reference, so a huge completion value is never copied out.
        (await script.run(context, { reference: true })).release();
      } catch (error) {
        if (this.failed()) throw error;
        return { ok: false, kind: 'throw', error: describeHostError(error), logs: replyFields(await reply(null)).logs };
      }
      return parseReply(await reply(inputsJson));
    } finally {
      if (!this.isolate.isDisposed) context.release();
    }
  }

  /** Why the isolate failed, if it did: a script's own throw is not a failure. */
  failed(): 'killed' | 'memory' | undefined {
    if (this.catastrophe !== undefined) return 'memory';
    if (this.isolate.isDisposed) return this.killed ? 'killed' : 'memory';
    return undefined;
  }

  /** Stops the run: disposing interrupts whatever the isolate's thread can be interrupted in. */
  kill(): void {
    this.killed = true;
    this.dispose();
  }

  dispose(): void {
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }

  get usable(): boolean {
    return !this.isolate.isDisposed && this.catastrophe === undefined;
  }

  /** Heap in use, plus array buffers, which count against the limit too. */
  async heapBytes(): Promise<number> {
    const heap = await this.isolate.getHeapStatistics();
    return heap.used_heap_size + heap.externally_allocated_size;
  }
}

/** isolated-vm's stand-in for a thrown object that is not an Error. */
const NOT_AN_ERROR = /^An object was thrown from supplied code within isolated-vm, but that object was not an instance of `Error`/;

/** One line for an error isolated-vm handed to the host (a compile error, or a top-level throw). */
function describeHostError(error: unknown): string {
  if (error instanceof Error) return NOT_AN_ERROR.test(error.message) ? 'threw a non-Error object' : `${error.name}: ${error.message}`;
  if (error === null || error === undefined) return `threw ${error}`;
  return `threw a ${typeof error}: ${String(error)}`;
}

/** The prelude's reply, checked: it is built inside the isolate, so trust nothing in it. */
function parseReply(reply: unknown): RunResult {
  const { ok, value, kind, error, logs } = replyFields(reply);
  if (ok === true && value !== undefined) return { ok, value: value as JsonValue, logs };
  if (ok === false && SCRIPT_ERROR_KINDS.includes(kind as ScriptErrorKind) && typeof error === 'string') {
    return { ok, kind: kind as ScriptErrorKind, error, logs };
  }
  throw new Error(`malformed sandbox reply: ${String(reply).slice(0, 200)}`);
}

function replyFields(reply: unknown): Record<string, unknown> & { logs: string } {
  const parsed: unknown = typeof reply === 'string' ? JSON.parse(reply) : undefined;
  if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { logs?: unknown }).logs !== 'string') {
    throw new Error(`malformed sandbox reply: ${String(reply).slice(0, 200)}`);
  }
  return parsed as Record<string, unknown> & { logs: string };
}
