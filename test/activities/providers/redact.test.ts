import { describe, expect, it } from 'vitest';
import { InputError } from '../../../core/errors.js';
import { configuredSecrets, redactedError, redactRecord, redactSecrets } from '../../../secrets/redact.js';
import { createProvider } from '../../../activities/providers/registry.js';
import { startLoopback } from './loopback.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('redactSecrets', () => {
  it('removes configured keys and key-shaped strings, masked or not', () => {
    const env = { OPENAI_API_KEY: 'plain-secret-value', ANTHROPIC_API_KEY: 'sk-ant-api03-abcdef' };
    expect(redactSecrets('401 Incorrect API key provided: sk-abc1***************wxyz.', env)).toBe(
      '401 Incorrect API key provided: [redacted].',
    );
    expect(redactSecrets('auth failed for plain-secret-value', env)).toBe('auth failed for [redacted]');
    expect(redactSecrets('key sk-ant-api03-abcdef rejected', env)).toBe('key [redacted] rejected');
    expect(redactSecrets('429 Rate limit reached for requests', env)).toBe('429 Rate limit reached for requests');
  });

  it('removes a configured key in every form: escaped, base64 alone or inside user:key, whatever its alignment', () => {
    const key = 'our/Key+With=Chars-91';
    const env = { OPENAI_COMPATIBLE_API_KEY: key };
    for (const user of ['', 'u', 'us', 'user', 'allocbench']) {
      const basic = b64(`${user}:${key}`);
      expect(redactSecrets(`Basic ${basic} and glued${basic}`, env)).toBe('Basic [redacted] and [redacted]');
    }
    expect(redactSecrets(`a ${b64(key)} b ${Buffer.from(key).toString('base64url')} c`, env)).toBe('a [redacted] b [redacted] c');
    expect(redactSecrets(`?k=${encodeURIComponent(key)} ${JSON.stringify({ key })}`, env)).toBe('?k=[redacted] {"key":"[redacted]"}');
  });

  it('removes credentials of any value by their shape: bearer and basic, auth headers, URL passwords and key parameters', () => {
    expect(redactSecrets('Authorization: Bearer abc.def-123456', {})).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('x-api-key: 0123456789 {"api_key":"qwertyuiop"}', {})).toBe('x-api-key: [redacted] {"api_key":"[redacted]"}');
    // A Google API key, unconfigured, as an error might quote it; and Gemini's key header.
    expect(redactSecrets('API key AIzaSyD-3kq9ZxW_abcdefghijklmnopqrstuv1 not valid; x-goog-api-key: qwertyuiop', {})).toBe(
      'API key [redacted] not valid; x-goog-api-key: [redacted]',
    );
    expect(redactSecrets('GET https://me:hunter2pw@host/v1?x=1&api_key=abc123&access_token=zz#f', {})).toBe(
      'GET https://me:[redacted]@host/v1?x=1&api_key=[redacted]&access_token=[redacted]#f',
    );
    // Ordinary text and URLs are left alone.
    expect(redactSecrets('connect ECONNREFUSED http://127.0.0.1:8080/v1/models (a key idea)', {})).toBe(
      'connect ECONNREFUSED http://127.0.0.1:8080/v1/models (a key idea)',
    );
  });

  it('treats every credential-named variable as a secret, and ignores short values', () => {
    expect(configuredSecrets({ HF_TOKEN: 'hf_abcdefgh', MY_SECRET: 'xyz', TEMPORAL_API_KEY: 'tmprl-1234567', PATH: '/usr/bin' })).toEqual([
      'tmprl-1234567',
      'hf_abcdefgh',
    ]);
  });

  it('sees a credential variable that changes after the first scan, and one that was set before it', () => {
    const env: NodeJS.ProcessEnv = { HF_TOKEN: 'hf_abcdefgh', PATH: '/usr/bin' };
    expect(configuredSecrets(env)).toEqual(['hf_abcdefgh']);
    env.OPENAI_API_KEY = 'sk-later-0123456789';
    expect(configuredSecrets(env)).toEqual(['sk-later-0123456789', 'hf_abcdefgh']);
    env.HF_TOKEN = 'hf_rotated-value';
    expect(configuredSecrets(env)).toEqual(['sk-later-0123456789', 'hf_rotated-value']);
    delete env.OPENAI_API_KEY;
    expect(configuredSecrets(env)).toEqual(['hf_rotated-value']);
  });
});

describe('redactRecord and redactedError', () => {
  it('clean every string of a record, and keep an error its class', () => {
    const secrets = ['s3cr3t-value'];
    expect(redactRecord({ a: ['x s3cr3t-value y', 1, null], b: { c: b64('u:s3cr3t-value') } }, secrets)).toEqual({
      a: ['x [redacted] y', 1, null],
      b: { c: '[redacted]' },
    });
    const untouched = { a: 'nothing here' };
    expect(redactRecord(untouched, secrets)).toBe(untouched);
    const error = redactedError(new InputError('bad key sk-live-0123456789'));
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toBe('bad key [redacted]');
    expect(error.stack).not.toContain('0123456789');
  });
});

describe('pre-flight errors', () => {
  it('carry no credential, whatever the server quotes back (OpenAI-compatible /models refusing the key)', async () => {
    const key = 'compat-secret-4f9c2a7e1b';
    const quoted = `key ${key}, Bearer ${key}, ${b64(`user:${key}`)}`;
    const server = await startLoopback(() => ({ status: 401, json: { error: { message: quoted, type: 'invalid_request_error' } } }));
    const saved = process.env.OPENAI_COMPATIBLE_API_KEY;
    process.env.OPENAI_COMPATIBLE_API_KEY = key;
    try {
      const provider = createProvider(`openai-compatible/m@${server.url}/v1`);
      const error = await provider.preflight().then(
        () => undefined,
        (caught: unknown) => caught as Error,
      );
      expect(error).toBeInstanceOf(InputError);
      expect(error?.message).toMatch(/cannot reach .*401/);
      expect(error?.message).not.toContain(key);
      expect(error?.message).not.toContain(b64(`user:${key}`));
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_COMPATIBLE_API_KEY;
      else process.env.OPENAI_COMPATIBLE_API_KEY = saved;
      await server.close();
    }
  });
});
