/** What a run may print, return and say about its failure, in characters. */
export const LOG_LIMIT = 4096;
export const OUTPUT_LIMIT = 65_536;
export const ERROR_LIMIT = 500;

/**
 * Runs first in every fresh context, before the script. It removes the globals
 * that escape the isolate's limits, captures the builtins it uses (a script
 * that rewrites JSON or String.prototype spoils only its own result), installs
 * a console that keeps a capped log, and evaluates to `finish(inputsJson)`.
 * finish calls solve (awaiting a promise) and answers with a reply built by
 * concatenation, not from objects a script could have poisoned:
 * {"ok":true,"value":<JSON>,"logs":…} or {"ok":false,"kind":…,"error":…,"logs":…};
 * finish(null) answers {"logs":…} alone, for a top level that threw.
 */
export const PRELUDE = `(() => {
  'use strict';
  // WebAssembly memory lives outside the heap limit; shared memory lets Atomics.wait
  // block without spending CPU. No solve needs either.
  delete globalThis.WebAssembly;
  delete globalThis.SharedArrayBuffer;
  delete globalThis.Atomics;

  const { stringify, parse } = JSON;
  const toText = String;
  const isFiniteNumber = Number.isFinite;
  const slice = Function.prototype.call.bind(String.prototype.slice);

  const kindOf = (value) => (value === null || value === undefined ? toText(value) : typeof value === 'object' ? 'an object' : 'a ' + typeof value);
  const bigintsAsText = (key, value) => (typeof value === 'bigint' ? toText(value) : value);
  const describeThrown = (thrown) => {
    try {
      if (thrown === null || thrown === undefined) return 'threw ' + thrown;
      if (typeof thrown !== 'object' && typeof thrown !== 'function') return 'threw ' + kindOf(thrown) + ': ' + toText(thrown);
      const message = thrown.message;
      if (typeof message !== 'string') return 'threw a non-Error ' + typeof thrown + ': ' + stringify(thrown, bigintsAsText);
      const name = thrown.name;
      return typeof name === 'string' && name !== '' ? name + ': ' + message : message;
    } catch {
      return 'threw ' + kindOf(thrown) + ' that cannot be described';
    }
  };

  let logs = '';
  let logsFull = false;
  const show = (value) => {
    if (typeof value === 'string') return value;
    try {
      if (typeof value === 'bigint') return toText(value) + 'n';
      const json = typeof value === 'object' && value !== null ? stringify(value, bigintsAsText) : undefined;
      return json === undefined ? toText(value) : json;
    } catch {
      return '[unprintable ' + typeof value + ']';
    }
  };
  const write = (...values) => {
    if (logsFull) return;
    for (let i = 0; i < values.length; i++) logs += (i === 0 ? '' : ' ') + show(values[i]);
    logs += '\\n';
    if (logs.length > ${LOG_LIMIT}) {
      logs = slice(logs, 0, ${LOG_LIMIT}) + '\\n[log truncated at ${LOG_LIMIT} characters]';
      logsFull = true;
    }
  };
  globalThis.console = { log: write, info: write, warn: write, error: write, debug: write };

  const reply = (head) => '{' + head + '"logs":' + stringify(logs) + '}';
  // The host makes the error one line and cuts it to ${ERROR_LIMIT}; this only bounds what crosses over.
  const failure = (kind, error) => reply('"ok":false,"kind":"' + kind + '","error":' + stringify(slice(error, 0, ${2 * ERROR_LIMIT})) + ',');

  // JSON.stringify silently drops or nulls these; a result must not lose them unnoticed.
  let notJson = '';
  const strictJson = (key, value) => {
    const type = typeof value;
    if (type === 'bigint') return toText(value);
    if (type === 'function' || type === 'symbol' || type === 'undefined' || (type === 'number' && !isFiniteNumber(value))) {
      const what = type === 'number' ? 'a non-finite number (' + value + ')' : kindOf(value);
      notJson = key === '' ? 'solve returned ' + what : 'the result holds ' + what + ' at key ' + stringify(key);
      throw notJson;
    }
    return value;
  };

  return async (inputsJson) => {
    if (inputsJson === null) return reply('');
    let result;
    try {
      if (typeof solve !== 'function') {
        return failure('no-solve', typeof solve === 'undefined' ? 'no function solve(inputs) is defined' : 'solve is ' + kindOf(solve) + ', not a function');
      }
      result = await solve(parse(inputsJson));
    } catch (thrown) {
      return failure('throw', describeThrown(thrown));
    }
    let json;
    try {
      json = stringify(result, strictJson);
    } catch (thrown) {
      return failure('non-serializable', notJson !== '' ? notJson : 'the result cannot be serialized: ' + describeThrown(thrown));
    }
    if (json.length > ${OUTPUT_LIMIT}) return failure('output-too-large', 'the result is ' + json.length + ' characters of JSON (limit ${OUTPUT_LIMIT})');
    return reply('"ok":true,"value":' + json + ',');
  };
})()`;
