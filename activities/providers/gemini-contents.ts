import type { Content, GenerateContentResponse, Part } from '@google/genai';
import type { ChatMessage, ModelReply, Replay, StopReason, ToolCall } from '../../core/chat/messages.js';
import { argumentsObject } from './call-arguments.js';

/*
 * The neutral conversation in the Gemini API's `contents` form, and a
 * response's candidate read back into a reply. A model turn goes back exactly
 * as it came (its parts, kept as the reply's replay): Gemini 3 refuses a
 * function call sent back without the `thoughtSignature` it was given, and
 * 2.5 models read their earlier thinking from the signatures.
 */

/** The replay format of Gemini model turns: the candidate's parts as received. */
const GEMINI_PARTS = 'gemini-parts';

/** A function call's name, and the id the API gave it (the response must carry the same), by our call id. */
type CallsById = Map<string, { readonly name: string; readonly apiId?: string }>;

/** The parts of a model turn: as received when the reply has them, otherwise built from its text and calls. */
function modelParts(message: Extract<ChatMessage, { role: 'assistant' }>, calls: CallsById): Part[] {
  if (message.replay?.format === GEMINI_PARTS) {
    const parts = message.replay.items as Part[];
    const apiCalls = parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
    message.toolCalls.forEach((call, i) => calls.set(call.id, { name: call.name, ...(apiCalls[i]?.id && { apiId: apiCalls[i].id }) }));
    // The API refuses a turn without parts: an empty reply is kept as a visible placeholder.
    return parts.length > 0 ? parts : [{ text: '(empty reply)' }];
  }
  for (const call of message.toolCalls) calls.set(call.id, { name: call.name });
  return [
    ...(message.content || message.toolCalls.length === 0 ? [{ text: message.content || '(empty reply)' }] : []),
    ...message.toolCalls.map((call) => ({ functionCall: { name: call.name, args: argumentsObject(call.arguments) } })),
  ];
}

/** The conversation as `contents`: tool results are functionResponse parts opening the next user turn. */
export function geminiContents(messages: readonly ChatMessage[]): Content[] {
  const contents: Content[] = [];
  const calls: CallsById = new Map();
  let pendingResults: Part[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      const call = calls.get(message.toolCallId);
      pendingResults.push({
        functionResponse: { ...(call?.apiId && { id: call.apiId }), name: call?.name ?? 'unknown', response: { output: message.content } },
      });
    } else if (message.role === 'user') {
      contents.push({ role: 'user', parts: [...pendingResults, { text: message.content }] });
      pendingResults = [];
    } else {
      // R3 calls follow tool results directly: they form a user turn of their own.
      if (pendingResults.length > 0) contents.push({ role: 'user', parts: pendingResults });
      pendingResults = [];
      contents.push({ role: 'model', parts: modelParts(message, calls) });
    }
  }
  if (pendingResults.length > 0) contents.push({ role: 'user', parts: pendingResults });
  return contents;
}

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT']);

/** Gemini finish reasons as the harness's; the API says STOP after a function call too. */
export function geminiStopReason(response: GenerateContentResponse, calls: number): StopReason | null {
  const candidate = response.candidates?.[0];
  if (!candidate) return response.promptFeedback?.blockReason ? 'content-filter' : null;
  const reason = candidate.finishReason;
  if (reason === undefined) return null;
  if (reason === 'STOP') return calls > 0 ? 'tool-use' : 'end';
  if (reason === 'MAX_TOKENS') return 'length';
  return FILTERED.has(reason) ? 'content-filter' : 'other';
}

/**
 * The first candidate as a reply: its text without thought summaries, its
 * function calls (the API's id, or one made unique in the conversation by
 * `turnKey`), and its parts, whole, to send back.
 */
export function geminiReply(response: GenerateContentResponse, turnKey: number): ModelReply {
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  const text = parts.flatMap((part) => (!part.thought && typeof part.text === 'string' ? [part.text] : [])).join('');
  const toolCalls: ToolCall[] = parts
    .flatMap((part) => (part.functionCall ? [part.functionCall] : []))
    .map((call, i) => ({ id: call.id ?? `call_${turnKey}_${i + 1}`, name: call.name ?? '', arguments: JSON.stringify(call.args ?? {}) }));
  const replay: Replay | undefined = parts.length > 0 ? { format: GEMINI_PARTS, items: parts } : undefined;
  return { text, toolCalls, ...(replay && { replay }) };
}
