/** Response bodies in the providers' real wire formats, for the loopback servers. */

export const anthropicMessage = (content: unknown[], usage: Partial<Record<string, number>> = {}, stop = 'end_turn') => ({
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-haiku-4-5-20251001',
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
});

export const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

export const chatCompletion = (
  message: Record<string, unknown>,
  usage: Record<string, unknown> = {},
  model = 'gpt-5.4-mini-2026-03-17',
  finishReason?: string,
) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_790_000_000,
  model,
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: null, refusal: null, ...message },
      finish_reason: finishReason ?? (message.tool_calls ? 'tool_calls' : 'stop'),
    },
  ],
  usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25, ...usage },
});

export const openAiError = (message: string, type: string, code: string | null = null) => ({ error: { message, type, param: null, code } });

export const functionCall = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });
