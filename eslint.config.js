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
          group: [
            '**/cli/**',
            '**/client/**',
            '**/viewer/**',
            '**/protocol/**',
            '**/workflows/**',
            '**/activities/**',
            '**/workers/**',
            '**/analysis/**',
            '**/importer/**',
            '**/infra/**',
            '**/bench/**',
            '**/run-store/**',
            '**/secrets/**',
          ],
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

// The layers, lowest first: core/ ← protocol/ ← workflows/ ← activities/ ←
// workers/ ← client/ (the sweep client) ← cli/ (the command, the door), with
// infra/ (the Temporal server and files on disk) beside activities/, and
// importer/, analysis/ and viewer/ reading the run store; the viewer drives no
// sweep. A layer never imports one built on it, not even for a type: vocabulary
// that several layers share lives in protocol/ (task queues, activity
// contracts, failure types, search attributes), core/ or run-store/.
const above = (...layers) => ({
  group: layers.map((layer) => `**/${layer}/**`),
  message: `a layer does not import the layers built on it (${layers.join(', ')}); shared vocabulary lives in protocol/ or core/.`,
});
const layerRules = (...layers) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns: [above(...layers)] }],
});

// Workflow code is replayed deterministically inside Temporal's sandbox: no Node
// builtins, and it reaches activities only through the contracts in protocol/.
const workflowRules = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: builtinModules.map((name) => ({ name, message: 'Workflows run in a deterministic sandbox: no Node builtins.' })),
      patterns: [
        { group: ['node:*'], message: 'Workflows run in a deterministic sandbox: no Node builtins.' },
        above('activities', 'infra', 'workers', 'client', 'viewer', 'cli', 'importer', 'analysis'),
      ],
    },
  ],
};

export default tseslint.config(
  // Not ours to lint: the build, packages, runs, tools, the trainer's Python environment and GPU kit, the S3 test server's environment.
  { ignores: ['dist/', 'node_modules/', 'runs/', '.tools/', 'rl/.venv/', 'rl/.gpu-kit/', 'infra/s3/.venv/'] },
  ...tseslint.configs.recommended,
  { files: ['core/**/*.ts', 'analysis/stats/**/*.ts'], rules: coreRules },
  { files: ['workflows/**/*.ts'], rules: workflowRules },
  {
    files: ['protocol/**/*.ts'],
    rules: layerRules('workflows', 'activities', 'infra', 'workers', 'client', 'viewer', 'cli', 'importer', 'analysis', 'run-store'),
  },
  {
    files: ['activities/**/*.ts', 'infra/**/*.ts'],
    rules: layerRules('workflows', 'workers', 'client', 'viewer', 'cli', 'importer', 'analysis'),
  },
  { files: ['workers/**/*.ts', 'importer/**/*.ts', 'analysis/**/*.ts'], rules: layerRules('client', 'viewer', 'cli') },
  { files: ['client/**/*.ts'], rules: layerRules('viewer', 'cli') },
  { files: ['viewer/**/*.ts'], rules: layerRules('client', 'cli') },
  // The RL study's Node side (the environment a trainer steps, the trainer's launcher) stands on the core and infra/ alone.
  {
    files: ['rl/bridge/**/*.ts'],
    rules: layerRules('workflows', 'activities', 'workers', 'client', 'viewer', 'cli', 'importer', 'analysis', 'run-store'),
  },
  // The run store is a layer of its own under everything that reads or writes runs: it imports only core/,
  // protocol/ and secrets/ (and secrets/ only core/).
  {
    files: ['run-store/**/*.ts'],
    rules: layerRules('workflows', 'activities', 'infra', 'workers', 'client', 'viewer', 'cli', 'importer', 'analysis', 'bench'),
  },
  {
    files: ['secrets/**/*.ts'],
    rules: layerRules(
      'protocol',
      'run-store',
      'workflows',
      'activities',
      'infra',
      'workers',
      'client',
      'viewer',
      'cli',
      'importer',
      'analysis',
      'bench',
    ),
  },
);
