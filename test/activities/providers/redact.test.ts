import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../activities/providers/redact.js';

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
});
