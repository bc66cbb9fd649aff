import type OpenAI from 'openai';
import type { ChatMessage, ModelReply, StopReason } from '../../core/chat/messages.js';
import { classifyApiError } from './api-errors.js';
import { lazyClient, lazySdk } from './lazy-sdk.js';
import { missingKeyError, type GenerateResponse, type Provider } from './provider.js';

/*
 * `openai-responses/<model>[?reasoning_effort=E]`: OpenAI's Responses API
 * through the official SDK, its own retries off. Unlike Chat Completions,
 * which refuses function tools with reasoning on, it takes both, so the model
 * reasons at every rung (reasoning_effort `medium` unless set; `default`
 * leaves it to the API). Nothing is stored at OpenAI (`store: false`): each
 * request carries the whole conversation, every earlier reply's output items
 * included as they came (their encrypted reasoning asked for with `include`),
 * without the item ids, which name nothing stored.
 */

const openAiSdk = lazySdk(() => import('openai'));
const REQUEST_TIMEOUT_MS = 10 * 60_000;

/** The replay format of a Responses API reply: its output items as received. */
const RESPONSES_ITEMS = 'openai-responses-items';

export interface OpenAiResponsesOptions {
  readonly model: string;
  readonly apiModel: string;
  readonly apiKey: string | undefined;
  readonly baseURL: string | undefined;
  /** null: the API's default effort. */
  readonly reasoningEffort: string | null;
  readonly requestTimeoutMs?: number;
}

type InputItem = OpenAI.Responses.ResponseInputItem;

/**
 * An earlier reply's output items, to send back: as received but for their
 * ids, less a trailing reasoning item (a reply cut off while reasoning): the
 * API can refuse a reasoning item without the item it led to.
 */
function replayedItems(items: readonly unknown[]): InputItem[] {
  const kept = items.map((item) => Object.fromEntries(Object.entries(item as object).filter(([key]) => key !== 'id')) as InputItem);
  while (kept.at(-1)?.type === 'reasoning') kept.pop();
  return kept;
}

/** The neutral conversation as Responses input items; the system prompt goes as `instructions`. */
function responsesInput(messages: readonly ChatMessage[]): InputItem[] {
  return messages.flatMap((message): InputItem[] => {
    if (message.role === 'user') return [{ role: 'user', content: message.content }];
    if (message.role === 'tool') return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content }];
    if (message.replay?.format === RESPONSES_ITEMS) return replayedItems(message.replay.items);
    return [
      ...(message.content ? [{ role: 'assistant' as const, content: message.content }] : []),
      ...message.toolCalls.map((call) => ({
        type: 'function_call' as const,
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
      })),
    ];
  });
}

/** Why a response ended, in the harness's terms: incomplete at the output limit is a cut-off. */
function responsesStopReason(response: OpenAI.Responses.Response, calls: number): StopReason | null {
  switch (response.status) {
    case undefined:
      return null;
    case 'completed':
      return calls > 0 ? 'tool-use' : 'end';
    case 'incomplete': {
      const reason = response.incomplete_details?.reason;
      return reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content-filter' : 'other';
    }
    default:
      return 'other';
  }
}

/** The output items as a reply: the messages' text, the function calls (by call_id), and every item to send back. */
function responsesReply(response: OpenAI.Responses.Response): ModelReply {
  const text = response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .flatMap((part) => (part.type === 'output_text' ? [part.text] : []))
    .join('');
  const toolCalls = response.output.flatMap((item) =>
    item.type === 'function_call' ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : [],
  );
  return { text, toolCalls, ...(response.output.length > 0 && { replay: { format: RESPONSES_ITEMS, items: response.output } }) };
}

export function openAiResponsesProvider(options: OpenAiResponsesOptions): Provider {
  const { model, apiModel } = options;
  const sdk = lazyClient(
    openAiSdk,
    (loaded) =>
      new loaded.default({
        apiKey: options.apiKey,
        baseURL: options.baseURL ?? null,
        maxRetries: 0,
        timeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      }),
  );
  return {
    model,
    apiModel,
    local: false,
    async preflight() {
      if (!options.apiKey) throw missingKeyError(model, 'OPENAI_API_KEY');
    },
    classify: (error) => classifyApiError(error, openAiSdk.loaded()?.default),
    async generate(request): Promise<GenerateResponse> {
      const api = await sdk();
      const response = await api.responses.create(
        {
          model: apiModel,
          instructions: request.system,
          input: responsesInput(request.messages),
          max_output_tokens: request.maxOutputTokens,
          ...(options.reasoningEffort !== null && { reasoning: { effort: options.reasoningEffort as OpenAI.ReasoningEffort } }),
          ...(request.temperature !== null && { temperature: request.temperature }),
          ...(request.tools.length > 0 && {
            tools: request.tools.map((tool) => ({
              type: 'function' as const,
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters as Record<string, unknown>,
              strict: false,
            })),
            tool_choice: request.toolChoice,
          }),
          store: false,
          include: ['reasoning.encrypted_content'],
        },
        { ...(request.signal && { signal: request.signal }) },
      );
      const reply = responsesReply(response);
      const usage = response.usage;
      return {
        ...reply,
        usage: {
          inputTokens: usage?.input_tokens ?? 0,
          outputTokens: usage?.output_tokens ?? 0,
          cachedInputTokens: usage?.input_tokens_details?.cached_tokens ?? 0,
          ...(typeof usage?.output_tokens_details?.reasoning_tokens === 'number' && {
            reasoningTokens: usage.output_tokens_details.reasoning_tokens,
          }),
        },
        usageEstimated: usage === undefined,
        responseModel: response.model,
        stopReason: responsesStopReason(response, reply.toolCalls.length),
      };
    },
  };
}
