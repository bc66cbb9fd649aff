import type OpenAI from 'openai';
import type { ChatMessage, StopReason } from '../../core/chat/messages.js';
import { recoverToolCalls } from '../../core/chat/recover-tool-calls.js';
import { InputError } from '../../core/errors.js';
import { classifyApiError } from './api-errors.js';
import { lazyClient, lazySdk } from './lazy-sdk.js';
import { missingKeyError, type GenerateResponse, type Provider } from './provider.js';
import { redactSecrets } from '../../secrets/redact.js';

/*
 * OpenAI Chat Completions through the official SDK, its own retries off:
 * tools with the request's tool_choice (auto, or required), the request's
 * temperature (omitted for the provider's default), usage with cached prompt
 * and reasoning tokens (OpenAI caches long shared prefixes by itself). Serves
 * both `openai/<model>` (reasoning_effort, 'none' by default as in the paper;
 * max_completion_tokens) and `openai-compatible/<name>@<baseURL>` for local
 * servers such as llama.cpp, vLLM and Ollama (max_tokens, no reasoning_effort;
 * a tool call the server left in the reply's text is read as a call).
 */

const openAiSdk = lazySdk(() => import('openai'));
const REQUEST_TIMEOUT_MS = 10 * 60_000;

export interface OpenAiChatOptions {
  readonly model: string;
  readonly apiModel: string;
  readonly apiKey: string | undefined;
  readonly baseURL: string | undefined;
  /** A local server: no key needed, empty-fence retries apply, and a reachable /models is checked up front. */
  readonly local: boolean;
  readonly reasoningEffort: string | null;
  readonly requestTimeoutMs?: number;
}

type Message = OpenAI.Chat.ChatCompletionMessageParam;

type FinishReason = OpenAI.Chat.ChatCompletion.Choice['finish_reason'];

/** Chat Completions finish reasons as the harness's stop reasons. */
export function openAiStopReason(reason: FinishReason | null | undefined): StopReason | null {
  switch (reason) {
    case null:
    case undefined:
      return null;
    case 'stop':
      return 'end';
    case 'tool_calls':
    case 'function_call':
      return 'tool-use';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

export function openAiMessages(system: string, messages: readonly ChatMessage[]): Message[] {
  return [
    { role: 'system', content: system },
    ...messages.map((message): Message => {
      if (message.role === 'user') return { role: 'user', content: message.content };
      if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
      return {
        role: 'assistant',
        content: message.content || null,
        ...(message.toolCalls.length > 0 && {
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
      };
    }),
  ];
}

export function openAiChatProvider(options: OpenAiChatOptions): Provider {
  const { model, apiModel, local } = options;
  const sdk = lazyClient(
    openAiSdk,
    (loaded) =>
      new loaded.default({
        apiKey: options.apiKey ?? 'not-needed',
        baseURL: options.baseURL ?? null,
        maxRetries: 0,
        timeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      }),
  );
  return {
    model,
    apiModel,
    local,
    async preflight() {
      if (!local && !options.apiKey) throw missingKeyError(model, 'OPENAI_API_KEY');
      if (!local) return;
      const api = await sdk();
      try {
        await api.models.list({ timeout: 5000 });
      } catch (error) {
        // A server's error may quote the key back (or the base URL may carry one): nothing of it is printed.
        throw new InputError(redactSecrets(`${model}: cannot reach ${options.baseURL}: ${(error as Error).message.split('\n')[0]}`));
      }
    },
    classify: (error) => classifyApiError(error, openAiSdk.loaded()?.default),
    async generate(request): Promise<GenerateResponse> {
      const api = await sdk();
      const response = await api.chat.completions.create(
        {
          model: apiModel,
          messages: openAiMessages(request.system, request.messages),
          ...(local ? { max_tokens: request.maxOutputTokens } : { max_completion_tokens: request.maxOutputTokens }),
          ...(options.reasoningEffort !== null && { reasoning_effort: options.reasoningEffort as OpenAI.ReasoningEffort }),
          ...(request.temperature !== null && { temperature: request.temperature }),
          ...(request.tools.length > 0 && {
            tools: request.tools.map((tool) => ({
              type: 'function' as const,
              function: { name: tool.name, description: tool.description, parameters: tool.parameters as Record<string, unknown> },
            })),
            tool_choice: request.toolChoice,
          }),
        },
        { ...(request.signal && { signal: request.signal }) },
      );
      const choice = response.choices[0];
      const text = choice?.message.content ?? '';
      const calls = (choice?.message.tool_calls ?? []).flatMap((call) =>
        call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
      );
      const usage = response.usage;
      const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
      return {
        text,
        // A local server may leave the call in the text (paper HARNESS.md, local models); the text stays as it is.
        toolCalls:
          local && calls.length === 0
            ? recoverToolCalls(
                text,
                request.tools.map((tool) => tool.name),
              )
            : calls,
        usage: {
          inputTokens: usage?.prompt_tokens ?? 0,
          outputTokens: usage?.completion_tokens ?? 0,
          cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
          ...(typeof reasoning === 'number' && { reasoningTokens: reasoning }),
        },
        usageEstimated: usage === undefined,
        responseModel: response.model,
        stopReason: openAiStopReason(choice?.finish_reason),
      };
    },
  };
}
