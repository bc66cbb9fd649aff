import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ENV_DEFAULTS } from '../../cli/env-defaults.js';
import { freePort } from '../../infra/ports.js';
import { runCliAsync, runCliWith } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'allocbench-cli-'));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Exit code 2, one line on stderr, no stack trace, and nothing written to the run directory. */
function expectRefused(args: string[], pattern: RegExp, env: Record<string, string> = {}): void {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}`);
  const { status, stderr } = runCliWith(env, [...args, '--out', out]);
  expect(status, stderr).toBe(2);
  expect(
    stderr
      .trimEnd()
      .split('\n')
      .filter((line) => !line.startsWith('Sweep ')),
  ).toHaveLength(1);
  expect(stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(join(out, 'manifest.json'))).toBe(false);
}

describe('allocbench sweep and run refuse bad input before anything starts', () => {
  it.each([
    [['sweep', join(dir, 'missing.yaml')], /missing\.yaml: cannot read the sweep file/],
    [['sweep', file('bad.yaml', 'name: [unclosed\n')], /bad\.yaml: not valid YAML or JSON/],
    [['sweep', file('typo.yaml', 'name: x\nmodels: [policy/eager]\nrungs: [R7]\n')], /typo\.yaml\.rungs\.0: /],
    [['sweep', file('nomodels.json', '{"name": "x", "rungs": ["R0"]}')], /nomodels\.json\.models: required but missing/],
    [['run', '--model', 'acme/brain-1', '--rung', 'R0'], /unknown provider 'acme'/],
    [['run', '--model', 'policy/greedy', '--rung', 'R0'], /unknown reference policy 'greedy'/],
    [['run', '--model', 'gpt', '--rung', 'R0'], /expected provider\/model/],
    [['run', '--model', 'policy/bayes', '--rung', 'R0'], /needs N disclosed/],
    [['run', '--model', 'policy/eager', '--rung', 'R1', '--reskin', 'chest'], /--reskin: applies only to R0 and probe/],
    [['run', '--model', 'policy/eager', '--rung', 'R5'], /--rung <rung>' argument 'R5' is invalid/],
    [['run', '--model', 'policy/eager', '--rung', 'R0', '--no-worker'], /--no-worker needs TEMPORAL_ADDRESS/],
    [
      ['run', '--model', 'anthropic/claude-haiku-4-5-20251001', '--rung', 'R0'],
      /claude-haiku-4-5-20251001: set ANTHROPIC_API_KEY in the environment or in a \.env file in the working directory$/m,
    ],
    [
      ['run', '--model', 'openai/gpt-5.4-mini-2026-03-17', '--rung', 'R1'],
      /set OPENAI_API_KEY in the environment or in a \.env file in the working directory$/m,
    ],
    [['run', '--model', 'openai/gpt-5.4-mini?temperature=0', '--rung', 'R1'], /the only option is reasoning_effort/],
    [
      ['run', '--model', 'openai-responses/gpt-5.4-mini', '--rung', 'R1'],
      /openai-responses\/gpt-5\.4-mini: set OPENAI_API_KEY in the environment or in a \.env file in the working directory$/m,
    ],
    [
      ['run', '--model', 'google/gemini-2.5-flash', '--rung', 'R1'],
      /google\/gemini-2\.5-flash: set GEMINI_API_KEY \(or GOOGLE_API_KEY\) in the environment or in a \.env file in the working directory$/m,
    ],
    [
      ['run', '--model', 'google/gemini-2.5-flash?thinking=on', '--rung', 'R1'],
      /unknown option 'thinking' \(options: thinking_budget, thinking_level\)/,
    ],
    [
      ['run', '--model', 'google/gemini-3-pro-preview?thinking_level=max', '--rung', 'R1'],
      /thinking_level must be one of minimal, low, medium, high/,
    ],
    [['run', '--model', 'openai-compatible/qwen', '--rung', 'R1'], /expected openai-compatible\/<name>@<http\(s\) base URL>/],
    [['run', '--model', 'openai-compatible/qwen@http://127.0.0.1:1/v1', '--rung', 'R1'], /cannot reach http:\/\/127\.0\.0\.1:1\/v1/],
    [['run', '--model', `gguf/${join(dir, 'absent.gguf')}`, '--rung', 'R0'], /no model file at/],
    [['run', '--model', `gguf/${file('fake.gguf', 'not a model')}`, '--rung', 'R0'], /is not a GGUF file/],
    [['run', '--model', 'policy/eager', '--rung', 'R0', '--prices', join(dir, 'none.yaml')], /none\.yaml: cannot read the price table/],
    [
      ['run', '--model', 'policy/eager', '--rung', 'R0', '--prices', file('bad-prices.yaml', 'x/y: { input: -1 }')],
      /bad-prices\.yaml\.x\/y\.input: /,
    ],
    [['run', '--rung', 'R3'], /--model: required \(or --agent split with --planner and --builder\)/],
    [['run', '--agent', 'split', '--planner', 'policy/eager', '--rung', 'R3'], /--builder: required with --agent split/],
    [['run', '--agent', 'split', '--planner', 'policy/eager', '--builder', 'policy/eager', '--rung', 'R1'], /--agent split: plays R3 only/],
    [['run', '--agent', 'split', '--model', 'policy/eager', '--rung', 'R3'], /--model: with --agent split, name the models with --planner/],
    [['run', '--model', 'policy/eager', '--builder', 'policy/eager', '--rung', 'R3'], /--planner, --builder: only with --agent split/],
    [['run', '--agent', 'team', '--model', 'policy/eager', '--rung', 'R3'], /--agent <kind>' argument 'team' is invalid/],
    [
      ['run', '--agent', 'split', '--planner', 'policy/eager', '--builder', 'policy/greedy', '--rung', 'R3'],
      /--builder: unknown reference policy 'greedy'/,
    ],
    [
      [
        'sweep',
        file(
          'split-models.yaml',
          'name: x\nagent: {kind: split, planner: policy/eager, builder: policy/eager}\nmodels: [policy/eager]\nrungs: [R3]\n',
        ),
      ],
      /split-models\.yaml\.models: leave it out: a split agent names its models/,
    ],
    [
      ['sweep', file('split-acme.yaml', 'name: x\nagent: {kind: split, planner: acme/brain-1, builder: policy/eager}\nrungs: [R3]\n')],
      /split-acme\.yaml\.agent\.planner: .*unknown provider 'acme'/,
    ],
  ])('%j', (args, pattern) => expectRefused(args, pattern));

  it("holds a sweep file to the flags' rules for seeds and models, one line per error, nothing started", () => {
    const sweep = file(
      'mistakes.yaml',
      'name: x\nrungs: [R0]\nseeds: "2000,2003-2001,2000"\nmodels: [policy/eager, acme/brain-1, policy/greedy]\n',
    );
    const out = join(dir, 'mistakes');
    const { status, stderr } = runCliWith({}, ['sweep', sweep, '--out', out]);
    expect(status, stderr).toBe(2);
    const lines = stderr.trimEnd().split('\n');
    const expected = [
      /\.seeds: range 2003-2001 runs backwards$/,
      /\.seeds: seed 2000 appears more than once$/,
      /\.models\.1: .*unknown provider 'acme'/,
      /\.models\.2: unknown reference policy 'greedy'/,
    ];
    expect(lines).toHaveLength(expected.length);
    expected.forEach((pattern, index) => expect(lines[index]).toMatch(pattern));
    expect(existsSync(out)).toBe(false);

    expectRefused(
      ['sweep', file('repeat.json', '{"name": "x", "rungs": ["R0"], "models": ["policy/eager"], "seeds": [2000, 2001, 2000]}')],
      /repeat\.json\.seeds: seed 2000 appears more than once/,
    );
    expectRefused(['run', '--model', 'policy/eager', '--rung', 'R0', '--seeds', '2000,2003-2001'], /range 2003-2001 runs backwards/);
  });

  it('refuses a cost cap without a price for a hosted model', () => {
    expectRefused(
      ['run', '--model', 'openai/gpt-4o', '--rung', 'R1', '--unit-cap', '2'],
      /a cost cap is set but the price table has no entry/,
      {
        OPENAI_API_KEY: 'sk-test',
      },
    );
  });

  it('names an unreachable Temporal address', () => {
    expectRefused(['run', '--model', 'policy/eager', '--rung', 'R0'], /cannot reach Temporal at 127\.0\.0\.1:1: /, {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expectRefused(['run', '--model', 'policy/eager', '--rung', 'R0'], /TEMPORAL_ADDRESS: 'not an address' is not host:port/, {
      TEMPORAL_ADDRESS: 'not an address',
    });
  });

  it('asks for a cluster address before starting a worker', () => {
    const { status, stderr } = runCliWith({}, ['worker']);
    expect(status).toBe(2);
    expect(stderr).toMatch(/set TEMPORAL_ADDRESS/);
  });
});

/**
 * Holds a port on 127.0.0.1, as another Temporal dev server does. Another test's embedded server may hold it for a
 * while (and release it before the command under test looks), so this waits until the port is its own.
 */
async function holdPort(port: number): Promise<Server> {
  for (const deadline = Date.now() + 240_000; ; await sleep(200)) {
    const server = createServer();
    const held = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (held) return server;
    if (Date.now() > deadline) throw new Error(`port ${port} stayed taken for 4 minutes`);
  }
}

describe('the embedded Temporal server on a busy machine', () => {
  const run = (out: string) => ['run', '--model', 'policy/eager', '--rung', 'R0', '--seeds', '2000-2001', '--out', join(dir, out)];
  const webUi = (stderr: string) => /^Temporal Web UI: http:\/\/127\.0\.0\.1:(\d+) \(embedded dev server(.*)$/m.exec(stderr);

  it("takes free ports when Temporal's default port is taken, and says which; a port given that is taken is refused", async () => {
    const holder = await holdPort(7233);
    try {
      const { status, stderr } = runCliWith({}, run('busy'));
      expect(status, stderr).toBe(0);
      const [, uiPort, rest] = webUi(stderr) ?? [];
      const port = Number(/^ on 127\.0\.0\.1:(\d+), as port 7233 is taken;/.exec(rest ?? '')?.[1]);
      expect(Number(uiPort), stderr).toBe(port + 1000);
      expect(stderr, 'nothing logged worth a line').not.toMatch(/Temporal logged/);

      const taken = ['run', '--model', 'policy/eager', '--rung', 'R0'];
      expectRefused([...taken, '--temporal-port', '7233'], /port 7233 is already taken/);
      expectRefused(taken, /port 7233 is already taken/, { [ENV_DEFAULTS.temporalPort]: '7233' });
    } finally {
      holder.close();
    }
  });

  it('runs two at once in different directories, each on ports of its own', async () => {
    const [first, second] = await Promise.all([runCliAsync({}, run('together-a')), runCliAsync({}, run('together-b'))]);
    expect(first.status, first.stderr).toBe(0);
    expect(second.status, second.stderr).toBe(0);
    const [firstUi, secondUi] = [first, second].map(({ stderr }) => webUi(stderr)?.[1]);
    expect(firstUi).toBeDefined();
    expect(secondUi).toBeDefined();
    expect(firstUi).not.toBe(secondUi);
  });
});

describe("Temporal's log lines", () => {
  it("go to the run's temporal.log, and the terminal gets one line counting the warnings and errors", async () => {
    // A file where the sessions' directory belongs: the session's first write fails, and the SDK warns of the failed activity and workflow.
    const out = join(dir, 'logged');
    mkdirSync(out);
    writeFileSync(join(out, 'sessions'), '');
    const { status, stderr } = runCliWith({}, [
      ...['run', '--model', 'policy/eager', '--rung', 'R0', '--seeds', '2000'],
      ...['--out', out, '--temporal-port', String(await freePort())],
    ]);
    expect(status, stderr).toBe(2);
    const log = join(out, 'temporal.log');
    expect(stderr).not.toMatch(/\[temporal|Activity failed/);
    expect(stderr).toMatch(new RegExp(`^Temporal logged \\d+ warnings? \\(${log}\\)$`, 'm'));
    const lines = readFileSync(log, 'utf8');
    expect(lines).toMatch(/^\S+ sdk WARN Activity failed \{/m);
    expect(lines).toMatch(/^\S+ server Temporal Server: /m);
  });
});
