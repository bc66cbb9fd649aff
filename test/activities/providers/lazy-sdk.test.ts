import { describe, expect, it } from 'vitest';
import { lazyClient, lazySdk } from '../../../activities/providers/lazy-sdk.js';

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

  it('imports again after a failed import, and is not loaded until one succeeds', async () => {
    let imports = 0;
    const sdk = lazySdk(async () => {
      if (++imports === 1) throw new Error('EMFILE: too many open files');
      return { id: imports };
    });
    await expect(sdk.get()).rejects.toThrow(/EMFILE/);
    expect(sdk.loaded()).toBeUndefined();
    expect(await sdk.get()).toEqual({ id: 2 });
    expect(sdk.loaded()).toEqual({ id: 2 });
  });

  it('makes one client for calls that start together, and makes it again after a failure to make it', async () => {
    const sdk = lazySdk(async () => ({ Client: class {} }));
    let made = 0;
    const client = lazyClient(sdk, (loaded) => {
      if (++made === 1) throw new Error('bad options');
      return new loaded.Client();
    });
    await expect(client()).rejects.toThrow(/bad options/);
    const [first, second, third] = await Promise.all([client(), client(), client()]);
    expect(first).toBe(second);
    expect(second).toBe(third);
    expect(made).toBe(2);
  });
});
