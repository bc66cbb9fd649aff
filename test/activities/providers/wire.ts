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

export const geminiResponse = (
  parts: unknown[],
  usage: Record<string, number> = {},
  finishReason = 'STOP',
  modelVersion = 'gemini-2.5-flash',
) => ({
  candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
  usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 5, totalTokenCount: 25, ...usage },
  modelVersion,
  responseId: 'resp-1',
});

/** A Google API error body (google.rpc.Status), with its details (RetryInfo, QuotaFailure…). */
export const googleError = (code: number, status: string, message: string, details: unknown[] = []) => ({
  error: { code, message, status, details },
});

export const responsesResponse = (
  output: unknown[],
  usage: Record<string, unknown> = {},
  model = 'gpt-5.4-mini-2026-03-17',
  incomplete: string | null = null,
) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1_790_000_000,
  status: incomplete ? 'incomplete' : 'completed',
  incomplete_details: incomplete ? { reason: incomplete } : null,
  model,
  output,
  usage: {
    input_tokens: 20,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 25,
    ...usage,
  },
});

export const reasoningItem = (id: string, encrypted: string) => ({ type: 'reasoning', id, summary: [], encrypted_content: encrypted });
export const outputMessage = (id: string, text: string) => ({
  type: 'message',
  id,
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});
export const functionCallItem = (id: string, callId: string, name: string, args: string) => ({
  type: 'function_call',
  id,
  call_id: callId,
  name,
  arguments: args,
  status: 'completed',
});
