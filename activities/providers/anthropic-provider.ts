import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, StopReason } from '../../core/chat/messages.js';
import { classifyApiError } from './api-errors.js';
import { argumentsObject } from './call-arguments.js';
import { lazyClient, lazySdk } from './lazy-sdk.js';
import { missingKeyError, type GenerateResponse, type Provider } from './provider.js';

/*
 * Anthropic Messages API through the official SDK, its own retries off
 * (Temporal is the only retry layer). Tools with tool_choice auto (or `any`
 * when a call is required), the request's temperature (omitted for the
 * provider's default), and prompt caching: the system prompt and
 * the newest user message carry cache breakpoints, so each turn, whose request
 * extends the previous one, reads the previous turn's cached prefix.
 * ANTHROPIC_API_KEY (and optionally ANTHROPIC_BASE_URL) come from the environment.
 */

const REQUEST_TIMEOUT_MS = 10 * 60_000;
const anthropicSdk = lazySdk(() => import('@anthropic-ai/sdk'));
type Block = Anthropic.ContentBlockParam;
type Turn = Anthropic.MessageParam;

/** Messages API stop reasons as the harness's: a context-window stop also cut the reply short. */
export function anthropicStopReason(reason: Anthropic.StopReason | null): StopReason | null {
  switch (reason) {
    case null:
      return null;
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'tool_use':
      return 'tool-use';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** The neutral conversation in Messages form: tool results open the next user turn. */
export function anthropicMessages(messages: readonly ChatMessage[]): Turn[] {
  const turns: Turn[] = [];
  let pendingResults: Block[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      pendingResults.push({ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content });
    } else if (message.role === 'user') {
      turns.push({ role: 'user', content: [...pendingResults, { type: 'text', text: message.content }] });
      pendingResults = [];
    } else {
      // R3 calls follow tool results directly: they form a user turn of their own.
      if (pendingResults.length > 0) turns.push({ role: 'user', content: pendingResults });
      pendingResults = [];
      const content: Block[] = [
        // The API refuses an empty turn; an empty reply is kept as a visible placeholder.
        ...(message.content || message.toolCalls.length === 0 ? [{ type: 'text' as const, text: message.content || '(empty reply)' }] : []),
        ...message.toolCalls.map((call) => ({
          type: 'tool_use' as const,
          id: call.id,
          name: call.name,
          input: argumentsObject(call.arguments),
        })),
      ];
      turns.push({ role: 'assistant', content });
    }
  }
  if (pendingResults.length > 0) turns.push({ role: 'user', content: pendingResults });
  const last = turns.at(-1)?.content;
  if (Array.isArray(last)) {
    const block = last.at(-1);
    if (block) last[last.length - 1] = { ...block, cache_control: { type: 'ephemeral' } } as Block;
  }
  return turns;
}

export function anthropicProvider(model: string, env: NodeJS.ProcessEnv = process.env, requestTimeoutMs = REQUEST_TIMEOUT_MS): Provider {
  const apiModel = model.slice('anthropic/'.length);
  const sdk = lazyClient(
    anthropicSdk,
    (loaded) =>
      new loaded.default({
        apiKey: env.ANTHROPIC_API_KEY,
        baseURL: env.ANTHROPIC_BASE_URL || null,
        maxRetries: 0,
        timeout: requestTimeoutMs,
      }),
  );
  return {
    model,
    apiModel,
    local: false,
    async preflight() {
      if (!env.ANTHROPIC_API_KEY) throw missingKeyError(model, 'ANTHROPIC_API_KEY');
    },
    classify: (error) => classifyApiError(error, anthropicSdk.loaded()?.default),
    async generate(request): Promise<GenerateResponse> {
      const api = await sdk();
      const response = await api.messages.create(
        {
          model: apiModel,
          max_tokens: request.maxOutputTokens,
          ...(request.temperature !== null && { temperature: request.temperature }),
          system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
          messages: anthropicMessages(request.messages),
          ...(request.tools.length > 0 && {
            tools: request.tools.map((tool) => ({
              name: tool.name,
              description: tool.description,
              input_schema: tool.parameters as Anthropic.Tool.InputSchema,
            })),
            tool_choice: request.toolChoice === 'required' ? { type: 'any' as const } : { type: 'auto' as const },
          }),
        },
        { ...(request.signal && { signal: request.signal }) },
      );
      const usage = response.usage;
      const cached = usage.cache_read_input_tokens ?? 0;
      const written = usage.cache_creation_input_tokens ?? 0;
      return {
        text: response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
        toolCalls: response.content.flatMap((block) =>
          block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input) }] : [],
        ),
        usage: {
          inputTokens: usage.input_tokens + cached + written,
          outputTokens: usage.output_tokens,
          cachedInputTokens: cached,
          cacheWriteTokens: written,
        },
        usageEstimated: false,
        responseModel: response.model,
        stopReason: anthropicStopReason(response.stop_reason),
      };
    },
  };
}
