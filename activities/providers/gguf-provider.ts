import { open } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelFunctions, GbnfJsonSchema, LlamaChatResponse } from 'node-llama-cpp';
import type { ChatMessage, StopReason, ToolSpec } from '../../core/chat/messages.js';
import { recoverToolCalls } from '../../core/chat/recover-tool-calls.js';
import { InputError } from '../../core/errors.js';
import { loadModel } from './gguf-model.js';
import { ProviderError, type GenerateResponse, type Provider } from './provider.js';

/*
 * `gguf/<path>[?context=N&parallel=N&threads=N]`: a quantized model run in
 * process by node-llama-cpp on the CPU, no server at all. Each conversation
 * gets a context of 8,192 tokens (the paper's local models') unless `context`
 * says otherwise; `threads` (default: the machine's math cores) leaves cores to
 * other work, since llama.cpp's threads spin when a core they wait on is busy. Tools are offered through the model's chat template
 * (node-llama-cpp's function calling, whose arguments are grammar-constrained);
 * a call the model leaves in its text instead is recovered as a call.
 * node-llama-cpp has no tool-choice setting: the model always chooses between
 * text and a call, so a request's `toolChoice: 'required'` offers the tools
 * exactly as 'auto' does, and what the paper's server forced is obtained the
 * way its harness backed it up: a reply without a call is asked again with a
 * format reminder (activities/provider-call.ts, empty-fence retries).
 * Sampling uses the request's temperature (0 by default for local models:
 * greedy) with llama.cpp's other defaults (top-k 40, top-p 0.95, min-p 0.05);
 * with no temperature given, llama.cpp's default 0.8. A seed per session,
 * turn and attempt makes a run repeat exactly. A prompt that no longer fits
 * the context is refused as a permanent error, as hosted APIs refuse one,
 * rather than silently truncated.
 */

const SAMPLING = { temperature: 0.8, topK: 40, topP: 0.95, minP: 0.05 } as const;

/** The paper's local models ran with an 8,192-token context. */
export const DEFAULT_CONTEXT = 8192;

type LlamaStopReason = LlamaChatResponse['metadata']['stopReason'];

/** node-llama-cpp's stop reasons as the harness's. */
export function llamaStopReason(reason: LlamaStopReason): StopReason {
  switch (reason) {
    case 'maxTokens':
      return 'length';
    case 'functionCalls':
      return 'tool-use';
    case 'eogToken':
    case 'stopGenerationTrigger':
    case 'customStopTrigger':
      return 'end';
    default:
      return 'other';
  }
}

/** node-llama-cpp's JSON-schema subset for function parameters: object properties and their types. */
function gbnfSchema(parameters: Readonly<Record<string, unknown>>): GbnfJsonSchema | undefined {
  const properties = parameters.properties as Record<string, { type?: string; description?: string }> | undefined;
  if (!properties || Object.keys(properties).length === 0) return undefined;
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => [
        name,
        { type: schema.type === 'string' ? 'string' : 'number', ...(schema.description && { description: schema.description }) },
      ]),
    ),
  } as GbnfJsonSchema;
}

function functionsFor(tools: readonly ToolSpec[]): ChatModelFunctions | undefined {
  if (tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((tool) => {
      const params = gbnfSchema(tool.parameters);
      return [tool.name, { description: tool.description, ...(params && { params }) }];
    }),
  );
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return {};
  }
}

/** The neutral conversation as node-llama-cpp's chat history: a tool result rides on its call. */
export function chatHistory(system: string, messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const results = new Map(messages.flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m.content] as const] : [])));
  const history: ChatHistoryItem[] = [{ type: 'system', text: system }];
  for (const message of messages) {
    if (message.role === 'user') history.push({ type: 'user', text: message.content });
    if (message.role === 'assistant') {
      const calls: ChatModelFunctionCall[] = message.toolCalls.map((call) => ({
        type: 'functionCall',
        name: call.name,
        params: parsedArguments(call.arguments),
        result: results.get(call.id) ?? '',
      }));
      history.push({ type: 'model', response: [...(message.content ? [message.content] : []), ...calls] });
    }
  }
  return history;
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

export function ggufProvider(model: string): Provider {
  const [pathPart = '', query = ''] = model.slice('gguf/'.length).split('?', 2);
  const params = new URLSearchParams(query);
  const path = resolve(pathPart);
  const contextSize = params.has('context') ? Number(params.get('context')) : DEFAULT_CONTEXT;
  const parallel = Number(params.get('parallel') ?? 2);
  const threads = params.has('threads') ? Number(params.get('threads')) : undefined;
  const apiModel = basename(path);
  return {
    model,
    apiModel,
    local: true,
    async preflight() {
      if (![...params.keys()].every((key) => key === 'context' || key === 'parallel' || key === 'threads'))
        throw new InputError(`${model}: options are context, parallel and threads`);
      if (!(contextSize >= 256) || !(parallel >= 1)) throw new InputError(`${model}: context must be at least 256 and parallel at least 1`);
      if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1))
        throw new InputError(`${model}: threads must be a whole number from 1`);
      let magic: string;
      try {
        const file = await open(path, 'r');
        const { buffer } = await file.read(Buffer.alloc(4), 0, 4, 0);
        await file.close();
        magic = buffer.toString('latin1');
      } catch {
        throw new InputError(`${model}: no model file at ${path}`);
      }
      if (magic !== 'GGUF') throw new InputError(`${model}: ${path} is not a GGUF file`);
    },
    classify: (error) => ({ errorClass: error instanceof ProviderError ? error.errorClass : 'permanent' }),
    async generate(request): Promise<GenerateResponse> {
      const loaded = await loadModel(path, { contextSize, parallel, threads });
      const { chat, release } = await loaded.acquire(request.conversationKey);
      try {
        const history = chatHistory(request.system, request.messages);
        const functions = functionsFor(request.tools);
        const prompt = chat.chatWrapper
          .generateContextState({
            chatHistory: [...history, { type: 'model', response: [] }],
            ...(functions && { availableFunctions: functions }),
          })
          .contextText.tokenize(loaded.model.tokenizer);
        if (prompt.length + request.maxOutputTokens > loaded.contextSize) {
          throw new ProviderError(
            `context too long: ${prompt.length} prompt tokens + ${request.maxOutputTokens} output tokens exceed the ${loaded.contextSize}-token context`,
            'permanent',
          );
        }
        const cached = commonPrefix(chat.sequence.contextTokens, prompt);
        let outputTokens = 0;
        const response = await chat.generateResponse(history, {
          ...(functions && { functions }),
          maxTokens: request.maxOutputTokens,
          ...SAMPLING,
          ...(request.temperature !== null && { temperature: request.temperature }),
          seed: request.sampleSeed,
          onToken: (tokens) => (outputTokens += tokens.length),
          ...(request.signal && { signal: request.signal }),
        });
        const calls = (response.functionCalls ?? []).map((call, i) => ({
          id: `call_${request.messages.length}_${i}`,
          name: call.functionName,
          arguments: JSON.stringify(call.params ?? {}),
        }));
        return {
          text: response.response,
          toolCalls:
            calls.length > 0
              ? calls
              : recoverToolCalls(
                  response.response,
                  request.tools.map((tool) => tool.name),
                ),
          usage: { inputTokens: prompt.length, outputTokens, cachedInputTokens: cached },
          usageEstimated: false,
          responseModel: apiModel,
          stopReason: llamaStopReason(response.metadata.stopReason),
        };
      } finally {
        release();
      }
    },
  };
}
