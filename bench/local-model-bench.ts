/*
 * The local-model path: tokens per second of SmolLM2-135M (GGUF, in process,
 * CPU) on this machine, and the cacheable share of input tokens over a 60-turn
 * R0 session — the part of each request that repeats the previous one, which a
 * prompt cache (a hosted provider's, or the local KV cache) need not process
 * again. Target: at least 90%. Needs `npm run fetch-model`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getLlama, LlamaChat } from 'node-llama-cpp';
import { conversation } from '../core/chat/conversation.js';
import { FAMILY_NAMES } from '../core/families/family.js';
import { systemPrompt } from '../core/rungs/system-prompt.js';
import { turnMessage } from '../core/rungs/turn-message.js';
import { nextDecisionPoint } from '../core/session/replay.js';
import { generateStream } from '../core/stream/generate-stream.js';
import { chatHistory } from '../activities/providers/gguf-provider.js';
import { projectRoot } from '../infra/project-root.js';

const modelPath = join(projectRoot(), 'models', 'SmolLM2-135M-Instruct.Q4_1.gguf');
if (!existsSync(modelPath)) {
  console.error(`no model at ${modelPath}: run npm run fetch-model first`);
  process.exit(1);
}

const llama = await getLlama({ gpu: false, build: 'never' });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: 8192, threads: llama.cpuMathCores });
const chat = new LlamaChat({ contextSequence: context.getSequence() });

// Generation throughput: free text from a short prompt.
const story = 'Tell me a long story about a dragon who counts coloured balls drawn from a bag.';
let generated = 0;
let firstTokenAt = 0;
await chat.generateResponse([{ type: 'user', text: story }], {
  maxTokens: 256,
  temperature: 0.8,
  seed: 1,
  onToken: (tokens) => {
    if (!firstTokenAt) firstTokenAt = performance.now();
    generated += tokens.length;
  },
});
const generationSeconds = (performance.now() - firstTokenAt) / 1000;

// Cacheable share over a 60-turn R0 session: an agent that never keeps faces all 60 draws.
const stream = generateStream(2000, { length: 60, budget: 3, hotCount: 3, hotMass: 0.85, magnitude: 100 });
const classes = stream.items.map((item) => FAMILY_NAMES.indexOf(item.family));
const framing = {
  rung: 'R0' as const,
  horizon: 60,
  budget: 3,
  charge: 0,
  economic: false,
  classCount: 8,
  announceN: true,
  reskin: 'ball' as const,
};
const system = systemPrompt(framing);
const exchanges: { user: string; reply: { text: string; toolCalls: [] }; toolResults: [] }[] = [];
const decided: { action: 'pass' }[] = [];
let previous: number[] = [];
let [inputTokens, cacheable, turns] = [0, 0, 0];
for (
  let point = nextDecisionPoint(classes, { budget: 3, charge: 0, classCount: 8 }, decided);
  point;
  point = nextDecisionPoint(classes, { budget: 3, charge: 0, classCount: 8 }, decided)
) {
  const user = turnMessage(framing, point, stream.items[point.t - 1]!);
  const history = chatHistory(system, conversation(exchanges, user));
  const tokens = chat.chatWrapper
    .generateContextState({ chatHistory: [...history, { type: 'model', response: [] }] })
    .contextText.tokenize(model.tokenizer);
  let shared = 0;
  while (shared < previous.length && shared < tokens.length && previous[shared] === tokens[shared]) shared++;
  inputTokens += tokens.length;
  cacheable += shared;
  turns++;
  previous = tokens;
  exchanges.push({ user, reply: { text: 'Too early to tell which colors are common.\nDECISION: PASS', toolCalls: [] }, toolResults: [] });
  decided.push({ action: 'pass' });
}

// Prompt processing: the session's longest request, evaluated from an empty cache.
await chat.sequence.clearHistory();
const longest = chatHistory(system, conversation(exchanges.slice(0, -1), exchanges.at(-1)?.user ?? ''));
const processingStarted = performance.now();
await chat.generateResponse(longest, { maxTokens: 1 });
const processingSeconds = (performance.now() - processingStarted) / 1000;

console.log(`Local model benchmark · node ${process.version} · SmolLM2-135M-Instruct Q4_1 · ${llama.cpuMathCores} CPU threads`);
console.log(
  `  prompt processing        ${(previous.length / processingSeconds).toFixed(0)} tokens/s (${previous.length} tokens from an empty cache in ${processingSeconds.toFixed(2)} s)`,
);
console.log(
  `  generation               ${(generated / generationSeconds).toFixed(1)} tokens/s (${generated} tokens in ${generationSeconds.toFixed(2)} s)`,
);
console.log(
  `  60-turn R0 session       ${turns} requests, ${inputTokens} input tokens, ${(inputTokens / turns).toFixed(0)} per request on average`,
);
console.log(
  `  cacheable share          ${((100 * cacheable) / inputTokens).toFixed(1)}% of input tokens repeat the previous request (target at least 90%)`,
);
await context.dispose();
await model.dispose();
