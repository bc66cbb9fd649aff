import OpenAI from 'openai';
import type { ChatMessage } from '../../core/chat/messages.js';
import { InputError } from '../../core/errors.js';
import { classifyApiError } from './api-errors.js';
import type { GenerateResponse, Provider } from './provider.js';

/*
 * OpenAI Chat Completions through the official SDK, its own retries off:
 * tools with tool_choice auto, the provider's default temperature, usage with
 * cached prompt tokens (OpenAI caches long shared prefixes by itself). Serves
 * both `openai/<model>` (reasoning_effort, 'none' by default as in the paper;
 * max_completion_tokens) and `openai-compatible/<name>@<baseURL>` for local
 * servers such as llama.cpp, vLLM and Ollama (max_tokens, no reasoning_effort).
 */

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
  let client: OpenAI | undefined;
  const sdk = () =>
    (client ??= new OpenAI({
      apiKey: options.apiKey ?? 'not-needed',
      baseURL: options.baseURL ?? null,
      maxRetries: 0,
      timeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    }));
  return {
    model,
    apiModel,
    local,
    async preflight() {
      if (!local && !options.apiKey) throw new InputError(`${model}: set OPENAI_API_KEY in the environment`);
      if (!local) return;
      try {
        await sdk().models.list({ timeout: 5000 });
      } catch (error) {
        throw new InputError(`${model}: cannot reach ${options.baseURL}: ${(error as Error).message.split('\n')[0]}`);
      }
    },
    classify: (error) => classifyApiError(error, OpenAI),
    async generate(request): Promise<GenerateResponse> {
      const response = await sdk().chat.completions.create(
        {
          model: apiModel,
          messages: openAiMessages(request.system, request.messages),
          ...(local ? { max_tokens: request.maxOutputTokens } : { max_completion_tokens: request.maxOutputTokens }),
          ...(options.reasoningEffort !== null && { reasoning_effort: options.reasoningEffort as OpenAI.ReasoningEffort }),
          ...(request.tools.length > 0 && {
            tools: request.tools.map((tool) => ({
              type: 'function' as const,
              function: { name: tool.name, description: tool.description, parameters: tool.parameters as Record<string, unknown> },
            })),
            tool_choice: 'auto' as const,
          }),
        },
        { ...(request.signal && { signal: request.signal }) },
      );
      const message = response.choices[0]?.message;
      const usage = response.usage;
      return {
        text: message?.content ?? '',
        toolCalls: (message?.tool_calls ?? []).flatMap((call) =>
          call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
        ),
        usage: {
          inputTokens: usage?.prompt_tokens ?? 0,
          outputTokens: usage?.completion_tokens ?? 0,
          cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
        },
        usageEstimated: usage === undefined,
        responseModel: response.model,
        stopReason: response.choices[0]?.finish_reason ?? null,
      };
    },
  };
}
