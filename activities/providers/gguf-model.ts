import type { LlamaChat, LlamaContext, LlamaModel } from 'node-llama-cpp';

/**
 * One loaded GGUF model with a context of `parallel` sequences. Each
 * conversation keeps a sequence (and so its evaluated prefix) while others
 * come and go; a new conversation takes the least recently used free one.
 */
export interface LoadedModel {
  readonly model: LlamaModel;
  readonly contextSize: number;
  acquire(conversationKey: string): Promise<{ chat: LlamaChat; release: () => void }>;
}

interface Slot {
  readonly chat: LlamaChat;
  owner: string | null;
  busy: boolean;
  lastUsed: number;
}

const loaded = new Map<string, Promise<LoadedModel>>();

interface ModelOptions {
  readonly contextSize?: number;
  readonly parallel: number;
  /** llama.cpp's threads; the machine's math cores unless given. */
  readonly threads?: number | undefined;
}

export function loadModel(path: string, options: ModelOptions): Promise<LoadedModel> {
  const key = `${path}|${options.contextSize}|${options.parallel}|${options.threads}`;
  let model = loaded.get(key);
  if (!model) {
    model = load(path, options);
    loaded.set(key, model);
  }
  return model;
}

async function load(path: string, options: ModelOptions): Promise<LoadedModel> {
  // Loaded when a GGUF model is first used: the library costs a sweep that runs none tens of MiB.
  const { getLlama, LlamaChat } = await import('node-llama-cpp');
  // CPU only, prebuilt binaries only: no GPU probing, no compiling at run time.
  const llama = await getLlama({ gpu: false, build: 'never' });
  const model = await llama.loadModel({ modelPath: path });
  // llama.cpp divides a context among its sequences; size it so each conversation gets the full window.
  const perSequence = options.contextSize ?? model.trainContextSize;
  const context: LlamaContext = await model.createContext({
    contextSize: perSequence * options.parallel,
    sequences: options.parallel,
    // More threads than math cores makes llama.cpp spin: 60x slower on two cores.
    threads: options.threads ?? llama.cpuMathCores,
  });
  const slots: Slot[] = Array.from({ length: options.parallel }, () => ({
    chat: new LlamaChat({ contextSequence: context.getSequence() }),
    owner: null,
    busy: false,
    lastUsed: 0,
  }));
  let clock = 0;
  const waiting: (() => void)[] = [];
  return {
    model,
    contextSize: Math.floor(context.contextSize / options.parallel),
    async acquire(conversationKey) {
      for (;;) {
        const free = slots.filter((slot) => !slot.busy);
        const slot = free.find((s) => s.owner === conversationKey) ?? free.sort((a, b) => a.lastUsed - b.lastUsed)[0];
        if (slot) {
          // Reserve before any await, or two new conversations could take the same slot.
          const previousOwner = slot.owner;
          Object.assign(slot, { owner: conversationKey, busy: true, lastUsed: ++clock });
          if (previousOwner !== conversationKey) await slot.chat.sequence.clearHistory();
          return {
            chat: slot.chat,
            release: () => {
              slot.busy = false;
              waiting.shift()?.();
            },
          };
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
  };
}
