import type { ErrorClassification } from './provider.js';

/*
 * Error classification for the official SDKs (Anthropic and OpenAI share the
 * same generated error hierarchy): connection failures, timeouts, 408, 409,
 * 429 and 5xx are transport errors worth another attempt; any other HTTP
 * status (bad request, authentication, context too long) and anything
 * unexpected are permanent. Of these, a 429, Anthropic's 529 (overloaded)
 * and a 503 that says the server is overloaded or asks to slow down are
 * throttled: the provider refused the call for load.
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

export function classifyApiError(error: unknown, sdk: SdkErrors): ErrorClassification {
  if (error instanceof sdk.APIConnectionError) return { errorClass: 'transport' };
  if (error instanceof sdk.APIError) {
    const { status, headers, message } = error as Error & { status?: number; headers?: Headers };
    if (status === undefined) return { errorClass: 'transport' }; // aborted or no response
    if (RETRYABLE_STATUS.has(status) || status >= 500) {
      const wait = retryAfterMs(headers);
      const throttled = throttleCause(status, message);
      return { errorClass: 'transport', ...(wait !== undefined && { retryAfterMs: wait }), ...(throttled && { throttled }) };
    }
  }
  return { errorClass: 'permanent' };
}
