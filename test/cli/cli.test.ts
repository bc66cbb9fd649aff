import { describe, expect, it } from 'vitest';
import { getFamily } from '../../core/families/registry.js';
import { streamHash } from '../../core/stream/stream-hash.js';
import { runCli } from './run-cli.js';

/** A usage error: exit code 2 and exactly one line on stderr, with no stack trace. */
function expectUsageError(args: string[], pattern: RegExp): void {
  const { status, stdout, stderr } = runCli(...args);
  expect(status).toBe(2);
  expect(stdout).toBe('');
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('allocbench solve', () => {
  it('prints the gold answer', () => {
    const inputs = { REMAINDERS: [1, 2000, 17, 2026, 5, 1000], MODULI: [2003, 2011, 2017, 2027, 2029, 2039] };
    const { status, stdout } = runCli('solve', 'crt_solve', '--inputs', JSON.stringify(inputs));
    expect(status).toBe(0);
    const x = BigInt(stdout.trim()); // beyond 2^53: printed exactly
    expect(x).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    expect(x).toBe(getFamily('crt_solve').solve(inputs));
    inputs.MODULI.forEach((m, i) => expect(x % BigInt(m)).toBe(BigInt(inputs.REMAINDERS[i] as number)));
  });

  it.each([
    [['solve', 'fibonacci', '--inputs', '{}'], /argument 'family'. Allowed choices are lcg, /],
    [['solve', 'lcg', '--inputs', '{"SEED": 1'], /--inputs: malformed JSON/],
    [['solve', 'lcg', '--inputs', '{"SEED":1,"A":2,"B":3,"M":5}'], /lcg inputs\.K: required but missing/],
    [['solve', 'josephus', '--inputs', '{"N":10,"K":2.5}'], /josephus inputs\.K: expected an integer/],
    [['solve', 'crt_solve', '--inputs', '{"REMAINDERS":[1,2],"MODULI":[4,6]}'], /pairwise coprime/],
    [['solve', 'lcg'], /required option '--inputs/],
  ])('rejects %j', (args, pattern) => expectUsageError(args, pattern));
});

describe('allocbench stream', () => {
  it('prints the stream as JSON with its documented fields and a verifiable hash', () => {
    const { status, stdout } = runCli('stream', '--seed', '2003', '--json');
    expect(status).toBe(0);
    const stream = JSON.parse(stdout);
    expect(stream.seed).toBe(2003);
    expect(stream.hot).toHaveLength(3);
    expect(stream.trap).toHaveLength(5);
    expect(stream.items).toHaveLength(60);
    for (const key of ['t', 'family', 'role', 'text', 'inputs', 'answer']) expect(stream.items[0]).toHaveProperty(key);
    const { hash, ...body } = stream;
    expect(streamHash(body)).toBe(hash);
  });

  it('prints a readable listing by default', () => {
    const { status, stdout } = runCli('stream', '--seed', '2000', '--length', '5', '--budget', '2');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^seed 2000 · T=5 B=2/);
    // Four header lines, a blank line, the table's header and rule, then one row per item.
    expect(stdout.trimEnd().split('\n')).toHaveLength(7 + 5);
  });

  it.each([
    [['stream', '--seed', 'abc'], /--seed <S>' argument 'abc' is invalid/],
    [['stream', '--seed', '4294967296'], /expected an integer from 0 to 4294967295/],
    [['stream', '--seed', '1', '--magnitude', '3'], /--magnitude <M>' argument '3' is invalid/],
    [['stream', '--seed', '1', '--length', '2'], /--budget: budget must not exceed the stream length/],
    [['stream'], /required option '--seed/],
  ])('rejects %j', (args, pattern) => expectUsageError(args, pattern));
});

describe('allocbench simulate', () => {
  it('prints one JSON object with the mean utility and its standard error', () => {
    const { status, stdout } = runCli('simulate', '--policy', 'commit-at-k', '--k', '2', '--streams', '50', '--json');
    expect(status).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ policy: 'commit-at-2', streams: 50, budget: 3, charge: 0, firstSight: 0 });
    expect(result.standardError).toBeGreaterThan(0);
    expect(result.meanUtility).toBeLessThanOrEqual(result.meanOptimum);
  });

  it.each([
    [['simulate', '--policy', 'greedy'], /--policy <name>' argument 'greedy' is invalid. Allowed choices are eager, /],
    [['simulate', '--policy', 'eager', '--k', '2'], /--k: applies only to --policy commit-at-k/],
    [['simulate', '--policy', 'eager', '--prior', 'uniform'], /--prior <kind>' argument 'uniform' is invalid/],
    [['simulate', '--policy', 'eager', '--budget', '0'], /--budget <B>' argument '0' is invalid/],
    [['simulate', '--policy', 'eager', '--charge', '-1'], /--charge <K>' argument '-1' is invalid/],
    [['simulate', '--policy', 'eager', '--streams', '1.5'], /--streams <N>' argument '1.5' is invalid/],
    [['simulate', '--policy', 'eager', '--alpha', '2'], /--alpha: applies only to/],
  ])('rejects %j', (args, pattern) => expectUsageError(args, pattern));
});

describe('allocbench panel', () => {
  it('prints every reference policy on the requested seeds', () => {
    // T = 24 keeps the optimal policy's table small.
    const { status, stdout } = runCli('panel', '--seeds', '2000-2002', '--length', '24', '--json');
    expect(status).toBe(0);
    const panel = JSON.parse(stdout);
    expect(panel.seeds).toEqual([2000, 2001, 2002]);
    expect(panel.policies.map((p: { policy: string }) => p.policy)).toEqual([
      'eager',
      'commit-at-2',
      'commit-at-3',
      'bayes(alpha=1)',
      'optimal',
      'hindsight',
    ]);
  });

  it('rejects a backwards seed range', () => {
    expectUsageError(['panel', '--seeds', '2023-2000'], /range 2023-2000 runs backwards/);
  });
});

describe('allocbench', () => {
  it('rejects an unknown command', () => expectUsageError(['fly'], /unknown command 'fly'/));
});
