import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// core/ is shared by Temporal workflows (deterministic replay) and scripts: no
// Node builtins, no clock, no global randomness, and no imports from the
// layers built on top of it. analysis/stats/ keeps the same rules, so the
// statistics stay reproducible functions of their inputs.
const coreRules = {
  'no-restricted-imports': [
    'error',
    {
      paths: builtinModules.map((name) => ({ name, message: 'core/ stays pure: no Node builtins.' })),
      patterns: [
        { group: ['node:*'], message: 'core/ stays pure: no Node builtins.' },
        {
          group: ['**/cli/**', '**/workflows/**', '**/activities/**', '**/workers/**', '**/analysis/**', '**/infra/**', '**/bench/**'],
          message: 'core/ must not depend on the layers built on it.',
        },
      ],
    },
  ],
  'no-restricted-globals': [
    'error',
    ...['Date', 'performance', 'process', 'Buffer', 'require', 'fetch', 'crypto'].map((name) => ({
      name,
      message: 'core/ stays pure: no clock, environment or I/O.',
    })),
    ...['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask'].map((name) => ({
      name,
      message: 'core/ stays pure: no timers.',
    })),
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Math', property: 'random', message: 'core/ draws randomness from a seeded Rng (core/random/rng.ts).' },
  ],
};

// Workflow code is replayed deterministically inside Temporal's sandbox: no Node
// builtins, and activities reach it only as types (called through proxies).
const workflowRules = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: builtinModules.map((name) => ({ name, message: 'Workflows run in a deterministic sandbox: no Node builtins.' })),
      patterns: [
        { group: ['node:*'], message: 'Workflows run in a deterministic sandbox: no Node builtins.' },
        {
          group: ['**/activities/**', '**/infra/**', '**/cli/**'],
          allowTypeImports: true,
          message: 'Workflows import activities as types only.',
        },
      ],
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'runs/', '.tools/'] },
  ...tseslint.configs.recommended,
  { files: ['core/**/*.ts', 'analysis/stats/**/*.ts'], rules: coreRules },
  { files: ['workflows/**/*.ts'], rules: workflowRules },
);
