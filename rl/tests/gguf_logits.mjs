// The raw next-token logits at every position of a token sequence, as llama.cpp computes them for a
// GGUF file through node-llama-cpp (the gguf/ provider's runtime): `node gguf_logits.mjs FILE '[ids]'`
// prints {"rows": [[logit per vocabulary id] per position]}.
import { getLlama } from 'node-llama-cpp';

const [path, ids] = process.argv.slice(2);
const tokens = JSON.parse(ids);
const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' });
const model = await llama.loadModel({ modelPath: path });
const context = await model.createContext({ contextSize: 512, threads: llama.cpuMathCores });
const results = await context.getSequence().controlledEvaluate(tokens.map((token) => [token, { generateNext: { logits: true } }]));
const rows = results.map((result) => {
  const row = new Array(result.next.logits.size).fill(null);
  for (const [token, logit] of result.next.logits) row[token] = logit;
  return row;
});
process.stdout.write(JSON.stringify({ rows }));
await context.dispose();
await model.dispose();
