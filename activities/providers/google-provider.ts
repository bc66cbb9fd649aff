import type { FunctionCallingConfigMode, GenerateContentConfig, ThinkingLevel } from '@google/genai';
import { InputError } from '../../core/errors.js';
import { classifyStatus, retryInfoMs } from './api-errors.js';
import { geminiContents, geminiReply, geminiStopReason } from './gemini-contents.js';
import { lazyClient, lazySdk } from './lazy-sdk.js';
import { modelOptions } from './model-options.js';
import { missingKeyError, type ErrorClassification, type GenerateResponse, type Provider } from './provider.js';

/*
 * `google/<model>[?thinking_budget=N | ?thinking_level=L]`: the Gemini API
 * (generateContent) through Google's official SDK, its own retries off (its
 * default; Temporal is the only retry layer). The system prompt as
 * systemInstruction, the output limit as maxOutputTokens (thinking counts
 * against it), tools as function declarations with function calling AUTO, or
 * ANY where a call is required. Thinking is the model's default unless the
 * model id sets a budget (2.5 models: tokens, 0 off, -1 dynamic) or a level
 * (Gemini 3: minimal, low, medium, high). GEMINI_API_KEY or GOOGLE_API_KEY
 * (Google's SDK prefers the latter when both are set) and optionally
 * GOOGLE_GEMINI_BASE_URL come from the environment.
 */

const REQUEST_TIMEOUT_MS = 10 * 60_000;
const googleSdk = lazySdk(() => import('@google/genai'));
/** The SDK's enums are strings on the wire; naming them here keeps the SDK unloaded until the first call. */
const LEVELS: Readonly<Record<string, ThinkingLevel>> = {
  minimal: 'MINIMAL' as ThinkingLevel,
  low: 'LOW' as ThinkingLevel,
  medium: 'MEDIUM' as ThinkingLevel,
  high: 'HIGH' as ThinkingLevel,
};
const CALLING_MODE: Readonly<Record<'auto' | 'required', FunctionCallingConfigMode>> = {
  auto: 'AUTO' as FunctionCallingConfigMode,
  required: 'ANY' as FunctionCallingConfigMode,
};

/** The model id's thinking option as the API's thinkingConfig; none: the model's default. */
function thinkingConfig(model: string, options: URLSearchParams): GenerateContentConfig['thinkingConfig'] {
  const budget = options.get('thinking_budget');
  const level = options.get('thinking_level');
  if (budget !== null && level !== null) throw new InputError(`${model}: set thinking_budget or thinking_level, not both`);
  if (budget !== null) {
    if (!/^(-1|\d+)$/.test(budget))
      throw new InputError(`${model}: thinking_budget must be a whole number of tokens, 0 (off) or -1 (dynamic)`);
    return { thinkingBudget: Number(budget) };
  }
  if (level === null) return undefined;
  const thinkingLevel = LEVELS[level];
  if (!thinkingLevel) throw new InputError(`${model}: thinking_level must be one of ${Object.keys(LEVELS).join(', ')}`);
  return { thinkingLevel };
}

/** 429 and 5xx (with RetryInfo's delay), dropped connections and timeouts are transport errors; the rest permanent. */
function classifyGoogleError(error: unknown): ErrorClassification {
  const loaded = googleSdk.loaded();
  if (loaded && error instanceof loaded.ApiError) {
    let body: unknown;
    try {
      body = JSON.parse(error.message);
    } catch {
      body = undefined;
    }
    return classifyStatus(error.status, retryInfoMs(body), error.message);
  }
  const name = (error as Error | undefined)?.name;
  // fetch's own failures: no connection, reset, or this request's timeout (or cancellation) aborting it.
  if ((error instanceof TypeError && error.message === 'fetch failed') || name === 'AbortError' || name === 'TimeoutError')
    return { errorClass: 'transport' };
  return { errorClass: 'permanent' };
}

export function googleProvider(model: string, env: NodeJS.ProcessEnv = process.env, requestTimeoutMs = REQUEST_TIMEOUT_MS): Provider {
  const { name: apiModel, options } = modelOptions(model, ['thinking_budget', 'thinking_level']);
  const thinking = thinkingConfig(model, options);
  const apiKey = env.GOOGLE_API_KEY || env.GEMINI_API_KEY;
  const sdk = lazyClient(
    googleSdk,
    (loaded) =>
      new loaded.GoogleGenAI({
        vertexai: false,
        apiKey,
        httpOptions: { timeout: requestTimeoutMs, ...(env.GOOGLE_GEMINI_BASE_URL && { baseUrl: env.GOOGLE_GEMINI_BASE_URL }) },
      }),
  );
  return {
    model,
    apiModel,
    local: false,
    async preflight() {
      if (!apiKey) throw missingKeyError(model, 'GEMINI_API_KEY (or GOOGLE_API_KEY)');
    },
    classify: classifyGoogleError,
    async generate(request): Promise<GenerateResponse> {
      const api = await sdk();
      const response = await api.models.generateContent({
        model: apiModel,
        contents: geminiContents(request.messages),
        config: {
          systemInstruction: request.system,
          maxOutputTokens: request.maxOutputTokens,
          ...(request.temperature !== null && { temperature: request.temperature }),
          ...(thinking && { thinkingConfig: thinking }),
          ...(request.tools.length > 0 && {
            tools: [
              {
                functionDeclarations: request.tools.map((tool) => ({
                  name: tool.name,
                  description: tool.description,
                  // The schema as JSON Schema; its `$schema` line tells the model nothing.
                  parametersJsonSchema: Object.fromEntries(Object.entries(tool.parameters).filter(([key]) => key !== '$schema')),
                })),
              },
            ],
            toolConfig: {
              functionCallingConfig: {
                mode: CALLING_MODE[request.toolChoice],
              },
            },
          }),
          ...(request.signal && { abortSignal: request.signal }),
        },
      });
      const reply = geminiReply(response, request.messages.length);
      const usage = response.usageMetadata;
      const cached = usage?.cachedContentTokenCount ?? 0;
      const thoughts = usage?.thoughtsTokenCount;
      return {
        ...reply,
        usage: {
          // promptTokenCount includes the cached part; thoughts are output, billed as output, and counted apart as reasoning.
          inputTokens: usage?.promptTokenCount ?? 0,
          cachedInputTokens: cached,
          outputTokens: (usage?.candidatesTokenCount ?? 0) + (thoughts ?? 0),
          ...(typeof thoughts === 'number' && { reasoningTokens: thoughts }),
        },
        usageEstimated: usage === undefined,
        responseModel: response.modelVersion ?? '',
        stopReason: geminiStopReason(response, reply.toolCalls.length),
      };
    },
  };
}
