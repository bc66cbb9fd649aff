import type { ScriptErrorKind, ScriptOutcome, TimeLimit } from '../../core/scripts/script-outcome.js';

/** A script that tries to hang, exhaust, escape or confuse the sandbox, and the outcome it must get. */
export interface HostileScript {
  readonly name: string;
  readonly code: string;
  /** The outcome's kind, or 'ok' for a run that must succeed. */
  readonly expected: ScriptErrorKind | 'ok';
  /** What else the outcome must satisfy (its error line, value or logs), if anything. */
  readonly check?: (outcome: ScriptOutcome) => boolean;
}

/** Fails as `kind`, with an error line matching `pattern`. */
const failsWith = (kind: ScriptErrorKind, pattern: RegExp) => ({
  expected: kind,
  check: (outcome: ScriptOutcome) => !outcome.ok && pattern.test(outcome.error),
});

/** Times out, stopped by `limit`: its CPU time, or the wall-clock guard. */
const timesOut = (limit: TimeLimit) => ({
  expected: 'timeout' as const,
  check: (outcome: ScriptOutcome) => !outcome.ok && outcome.kind === 'timeout' && outcome.limit === limit,
});

/** Succeeds, and the outcome passes `check`. */
const succeeds = (check: (outcome: ScriptOutcome & { ok: true }) => boolean) => ({
  expected: 'ok' as const,
  check: (outcome: ScriptOutcome) => outcome.ok && check(outcome),
});

/** Run with small limits (see the tests): 500 ms of CPU time (so a 5 s wall-clock guard), 32 MB. */
export const HOSTILE_SCRIPTS: readonly HostileScript[] = [
  // Time.
  { name: 'infinite loop', code: 'function solve() { while (true) {} }', ...timesOut('cpu') },
  { name: 'infinite loop at the top level', code: 'for (;;) {}\nfunction solve() { return 1; }', ...timesOut('cpu') },
  { name: 'infinite async loop', code: 'async function solve() { for (;;) await null; }', ...timesOut('cpu') },
  { name: 'never-resolving promise', code: 'function solve() { return new Promise(() => {}); }', ...timesOut('wall') },
  { name: 'thenable that never calls back', code: 'function solve() { return { then() {} }; }', ...timesOut('wall') },
  {
    name: 'microtask flood',
    code: 'function solve() { const spin = () => { Promise.resolve().then(spin); }; spin(); return new Promise(() => {}); }',
    ...timesOut('cpu'),
  },
  {
    name: 'catastrophic regex backtracking',
    code: 'function solve() { return /^(a+)+$/.test("a".repeat(40) + "b"); }',
    ...timesOut('cpu'),
  },
  {
    name: 'solve as a getter that loops',
    code: "Object.defineProperty(globalThis, 'solve', { get() { for (;;) {} } });",
    ...timesOut('cpu'),
  },

  // Memory.
  {
    name: 'unbounded array growth',
    code: 'function solve() { const a = []; for (;;) a.push(new Array(1e5).fill(a.length)); }',
    expected: 'memory',
  },
  {
    name: 'unbounded BigInt growth',
    code: 'function solve() { const a = []; for (let i = 0n; ; i++) a.push(2n ** 100000n + i); }',
    expected: 'memory',
  },
  {
    name: 'string doubling',
    code: 'function solve() { let s = "x"; for (;;) s += s; }',
    ...failsWith('throw', /RangeError: Invalid string length/),
  },
  {
    name: 'deep recursion',
    code: 'function solve(n) { return solve(n) + 1; }',
    ...failsWith('throw', /RangeError: Maximum call stack size exceeded/),
  },
  {
    name: 'huge ArrayBuffer',
    code: 'function solve() { return new ArrayBuffer(2 ** 31).byteLength; }',
    ...failsWith('throw', /Array buffer allocation failed/),
  },
  {
    name: 'array buffers past the heap limit',
    code: 'function solve() { const keep = []; for (;;) keep.push(new Uint8Array(8 << 20).fill(1)); }',
    ...failsWith('throw', /Array buffer allocation failed/),
  },
  {
    name: 'huge BigInt power',
    code: 'function solve() { return 2n ** (2n ** 40n); }',
    ...failsWith('throw', /RangeError: Maximum BigInt size exceeded/),
  },
  {
    name: 'generating a huge function',
    code: 'function solve() { return eval("1+".repeat(5e6) + "1"); }',
    ...failsWith('throw', /EvalError: Code generation from strings disallowed/),
  },

  // Thrown values that are not Errors.
  { name: 'throw a string', code: "function solve() { throw 'boom'; }", ...failsWith('throw', /^threw a string: boom$/) },
  { name: 'throw a number', code: 'function solve() { throw 42; }', ...failsWith('throw', /^threw a number: 42$/) },
  { name: 'throw null', code: 'function solve() { throw null; }', ...failsWith('throw', /^threw null$/) },
  { name: 'throw undefined', code: 'function solve() { throw undefined; }', ...failsWith('throw', /^threw undefined$/) },
  {
    name: 'throw an object',
    code: 'function solve() { throw { code: 7 }; }',
    ...failsWith('throw', /^threw a non-Error object: \{"code":7\}$/),
  },
  { name: 'throw a Symbol', code: "function solve() { throw Symbol('s'); }", ...failsWith('throw', /^threw a symbol: Symbol\(s\)$/) },
  {
    name: 'throw a non-Error whose toString throws',
    code: "function solve() { throw { toString() { throw new Error('gotcha'); } }; }",
    ...failsWith('throw', /^threw a non-Error object: \{\}$/),
  },
  {
    name: 'throw an object whose message getter throws',
    code: 'function solve() { throw { get message() { throw 1; } }; }',
    ...failsWith('throw', /^threw an object that cannot be described$/),
  },
  { name: 'reject with a non-Error', code: 'async function solve() { throw 7n; }', ...failsWith('throw', /^threw a bigint: 7$/) },
  {
    name: 'throw at the top level',
    code: "throw 'early';\nfunction solve() { return 1; }",
    ...failsWith('throw', /^threw a string: early$/),
  },
  { name: 'throw an object at the top level', code: 'throw { early: true };', ...failsWith('throw', /^threw a non-Error object$/) },
  {
    name: 'throw a multi-line Error',
    code: "function solve() { throw new TypeError('a\\nb\\n' + 'c'.repeat(5000)); }",
    ...failsWith('throw', /^TypeError: a b c{400,}…$/),
  },

  // Results that are not JSON.
  {
    name: 'return a function',
    code: 'function solve() { return () => 1; }',
    ...failsWith('non-serializable', /solve returned a function/),
  },
  {
    name: 'return a symbol',
    code: "function solve() { return Symbol('s'); }",
    ...failsWith('non-serializable', /solve returned a symbol/),
  },
  { name: 'return undefined', code: 'function solve() {}', ...failsWith('non-serializable', /solve returned undefined/) },
  {
    name: 'return a nested function',
    code: 'function solve() { return { f() {} }; }',
    ...failsWith('non-serializable', /a function at key "f"/),
  },
  {
    name: 'return NaN',
    code: 'function solve() { return [1, 0 / 0]; }',
    ...failsWith('non-serializable', /non-finite number \(NaN\) at key "1"/),
  },
  {
    name: 'return a circular structure',
    code: 'function solve() { const a = {}; a.self = a; return a; }',
    ...failsWith('non-serializable', /circular structure/),
  },
  {
    name: 'return a Proxy that throws when serialized',
    code: "function solve() { return new Proxy({}, { get(target, key) { if (key === 'then') return undefined; throw new Error('trap'); } }); }",
    ...failsWith('non-serializable', /Error: trap/),
  },
  {
    // Awaiting the result reads its `then`: that throw is the script's own.
    name: 'return a Proxy that throws when awaited',
    code: "function solve() { return new Proxy({}, { get() { throw new Error('trap'); } }); }",
    ...failsWith('throw', /^Error: trap$/),
  },
  {
    name: 'return a getter that throws',
    code: "function solve() { return { get x() { throw new Error('getter'); } }; }",
    ...failsWith('non-serializable', /Error: getter/),
  },
  {
    name: 'return a toJSON that throws',
    code: 'function solve() { return { toJSON() { throw 3; } }; }',
    ...failsWith('non-serializable', /threw a number: 3/),
  },
  { name: 'megabyte return value', code: "function solve() { return 'x'.repeat(1 << 20); }", expected: 'output-too-large' },
  { name: 'huge BigInt return value', code: 'function solve() { return 7n ** 100000n; }', expected: 'output-too-large' },
  {
    name: 'megabytes of console output',
    code: "function solve() { for (let i = 0; i < 20000; i++) console.log('x'.repeat(100), i); console.error('y'.repeat(1 << 20)); return 1; }",
    ...succeeds(
      (outcome) => outcome.value === 1 && outcome.logs.length < 4200 && outcome.logs.endsWith('[log truncated at 4096 characters]'),
    ),
  },
  {
    name: 'printing unprintable values',
    code: "function solve() { console.log(new Proxy({}, { get() { throw 1; } }), { toString() { throw 2; } }, Symbol('q'), 5n); return 1; }",
    ...succeeds((outcome) => outcome.logs === '[unprintable object] {} Symbol(q) 5n\n'),
  },

  // Escapes: the context has JavaScript's builtins and nothing else.
  { name: 'process', code: 'function solve() { return process.pid; }', ...failsWith('throw', /process is not defined/) },
  {
    name: 'require',
    code: "function solve() { return require('fs').readFileSync('/etc/passwd', 'utf8'); }",
    ...failsWith('throw', /require is not defined/),
  },
  { name: 'module', code: 'function solve() { return module.exports; }', ...failsWith('throw', /module is not defined/) },
  {
    name: 'fetch',
    code: "async function solve() { return (await fetch('http://example.com')).status; }",
    ...failsWith('throw', /fetch is not defined/),
  },
  {
    name: 'setTimeout',
    code: 'function solve() { return new Promise((resolve) => setTimeout(resolve, 1)); }',
    ...failsWith('throw', /setTimeout is not defined/),
  },
  {
    name: 'dynamic import',
    code: "async function solve() { return Object.keys(await import('node:fs')); }",
    ...failsWith('throw', /Not supported/),
  },
  {
    name: 'WebAssembly',
    code: 'function solve() { return new WebAssembly.Memory({ initial: 1000 }).buffer.byteLength; }',
    ...failsWith('throw', /WebAssembly is not defined/),
  },
  {
    name: 'the Function constructor',
    code: "function solve() { return this.constructor.constructor('return process')().env; }",
    ...failsWith('throw', /process is not defined/),
  },
  {
    name: 'SharedArrayBuffer and Atomics.wait forever',
    code: 'function solve() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return 1; }',
    ...failsWith('throw', /(SharedArrayBuffer|Atomics) is not defined/),
  },
  {
    name: 'no host globals on the global object',
    code: 'function solve() { return Object.getOwnPropertyNames(globalThis).filter((name) => /^(process|require|module|global|fetch|setTimeout|setInterval|queueMicrotask|Buffer|WebAssembly|SharedArrayBuffer|Atomics|ivm|_ivm)$/.test(name)); }',
    ...succeeds((outcome) => Array.isArray(outcome.value) && outcome.value.length === 0),
  },
  {
    name: 'forging the result by rewriting JSON.stringify',
    code: 'JSON.stringify = () => \'{"ok":true,"value":"forged","logs":""}\';\nfunction solve() { return 1; }',
    ...succeeds((outcome) => outcome.value === 1),
  },

  // Scripts that are not a solve.
  {
    name: 'syntax error',
    code: 'function solve(inputs) { return inputs.x +; }',
    ...failsWith('compile', /^SyntaxError: Unexpected token/),
  },
  { name: 'missing solve', code: 'function solver(inputs) { return 1; }', ...failsWith('no-solve', /no function solve/) },
  { name: 'solve not a function', code: 'const solve = 42;', ...failsWith('no-solve', /solve is a number, not a function/) },

  // Time again: a BigInt toString ignores termination, so its thread runs on after the CPU limit stops the run,
  // until its isolate process is ended. About four times the limit on an idle machine (3 million digits took
  // 465 ms on one: too close).
  { name: 'slow BigInt toString', code: 'function solve() { return (10n ** 8000000n).toString().length; }', ...timesOut('cpu') },
];
