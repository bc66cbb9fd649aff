import type { ErrorClassification } from './provider.js';

/*
 * Error classification for the official SDKs (Anthropic and OpenAI share the
 * same generated error hierarchy): connection failures, timeouts, 408, 409,
 * 429 and 5xx are transport errors worth another attempt; any other HTTP
 * status (bad request, authentication, context too long) and anything
 * unexpected are permanent.
 */

interface SdkErrors {
  readonly APIError: abstract new (...args: never[]) => Error;
  readonly APIConnectionError: abstract new (...args: never[]) => Error;
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);

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
    const { status, headers } = error as Error & { status?: number; headers?: Headers };
    if (status === undefined) return { errorClass: 'transport' }; // aborted or no response
    if (RETRYABLE_STATUS.has(status) || status >= 500) {
      const wait = retryAfterMs(headers);
      return { errorClass: 'transport', ...(wait !== undefined && { retryAfterMs: wait }) };
    }
  }
  return { errorClass: 'permanent' };
}
