import { serveRlEnvironment } from './rl-env-stdio.js';

/*
 * The environment alone, without the rest of the CLI: what `allocbench rl-env` runs, as an entry whose
 * imports are the core and zod only, so that a trainer on a machine without the project's node_modules
 * (the GPU check's kit, rl/bench/gpu_kit.py) can carry it with a Node runtime.
 */
await serveRlEnvironment(process.stdin, process.stdout);
