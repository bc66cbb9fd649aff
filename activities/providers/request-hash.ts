import { createHash } from 'node:crypto';
import type { GenerateRequest } from './provider.js';

/** What a request asks of the model: everything a provider sends, and nothing that only names the call (session, turn, attempt, seed). */
type RenderedRequest = Pick<GenerateRequest, 'system' | 'messages' | 'tools' | 'toolChoice' | 'temperature' | 'maxOutputTokens'>;

/**
 * SHA-256 (hex) of a request as the provider of `model` would be sent it: the
 * model id, the system prompt, the messages, the tools, the tool choice and
 * the limits. Recorded with every attempt; a replay answers a call only where
 * its request hashes the same as the recorded one, so a changed prompt, tool or
 * limit is a miss. The JSON is that of the request as the harness builds it
 * (its key order is the code's own, the same in every run of the same code).
 */
export function requestHash(model: string, request: RenderedRequest): string {
  const { system, messages, tools, toolChoice, temperature, maxOutputTokens } = request;
  return createHash('sha256')
    .update(JSON.stringify({ model, system, messages, tools, toolChoice, temperature, maxOutputTokens }))
    .digest('hex');
}
