import { describe, expect, it } from 'vitest';
import { lazySdk } from '../../../activities/providers/lazy-sdk.js';

describe('a provider SDK loaded on first use', () => {
  it('is not imported until a call asks for it, then imported once and shared by every caller', async () => {
    let imports = 0;
    const sdk = lazySdk(async () => ({ id: ++imports }));
    expect(imports).toBe(0);
    expect(sdk.loaded()).toBeUndefined();
    const [first, second] = await Promise.all([sdk.get(), sdk.get()]);
    expect(first).toBe(second);
    expect(await sdk.get()).toBe(first);
    expect(sdk.loaded()).toBe(first);
    expect(imports).toBe(1);
  });
});
