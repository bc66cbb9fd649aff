import type { ErrorClassification } from './provider.js';

/*
 * Error classification for the official SDKs: connection failures, timeouts,
 * 408, 409, 429 and 5xx are transport errors worth another attempt; any other
 * HTTP status (bad request, authentication, context too long) and anything
 * unexpected are permanent. Anthropic and OpenAI share one generated error
 * hierarchy (classifyApiError); Google's SDK has its own (google-provider.ts),
 * classified by status the same way (classifyStatus). Of these, a 429,
 * Anthropic's 529 (overloaded) and a 503 that says the server is overloaded
 * or asks to slow down are throttled: the provider refused the call for load.
 */

interface SdkErrors {
  readonly APIError: abstract new (...args: never[]) => Error;
  readonly APIConnectionError: abstract new (...args: never[]) => Error;
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);
const OVERLOADED = /overload|slow down/i;

/** Why a refused call was refused for load, or undefined. */
function throttleCause(status: number, message: string): string | undefined {
  if (status === 429 || status === 529) return String(status);
  if (status === 503 && OVERLOADED.test(message)) return '503 overloaded';
  return undefined;
}

/** Milliseconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const exact = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(exact) && exact > 0) return exact;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Milliseconds from a Google API error body's `google.rpc.RetryInfo` detail
 * (`{"error": {"details": [{"@type": "…RetryInfo", "retryDelay": "37s"}]}}`),
 * where the server says how long to wait; undefined when it says nothing.
 */
export function retryInfoMs(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details as { '@type'?: unknown; retryDelay?: unknown }[]) {
    if (typeof detail?.['@type'] !== 'string' || !detail['@type'].endsWith('google.rpc.RetryInfo')) continue;
    const seconds = typeof detail.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay)?.[1] : undefined;
    if (seconds !== undefined) return Math.round(Number(seconds) * 1000);
  }
  return undefined;
}

/** An HTTP error status as transport (with the server's requested wait, if any, and why it throttled) or permanent. */
export function classifyStatus(status: number, wait: number | undefined, message = ''): ErrorClassification {
  if (!RETRYABLE_STATUS.has(status) && status < 500) return { errorClass: 'permanent' };
  const throttled = throttleCause(status, message);
  return { errorClass: 'transport', ...(wait !== undefined && { retryAfterMs: wait }), ...(throttled && { throttled }) };
}

/** `sdk` is undefined before a call has loaded the SDK: no error can then be one of its own. */
export function classifyApiError(error: unknown, sdk: SdkErrors | undefined): ErrorClassification {
  if (!sdk) return { errorClass: 'permanent' };
  if (error instanceof sdk.APIConnectionError) return { errorClass: 'transport' };
  if (error instanceof sdk.APIError) {
    const { status, headers, message } = error as Error & { status?: number; headers?: Headers };
    if (status === undefined) return { errorClass: 'transport' }; // aborted or no response
    return classifyStatus(status, retryAfterMs(headers), message);
  }
  return { errorClass: 'permanent' };
}
