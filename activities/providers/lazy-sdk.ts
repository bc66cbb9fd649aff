/**
 * A provider's SDK, imported by its first call rather than when the module
 * loads: a sweep of reference agents, `status` or `analyze` never pays the
 * SDKs' start-up time and memory (0.3 s and 15 MiB of every command).
 * `loaded()` is the module once a call has imported it; before that no error
 * can be one of the SDK's own. An import that failed is tried again by the
 * next call.
 */
export interface LazySdk<T> {
  get(): Promise<T>;
  loaded(): T | undefined;
}

/** `make` run once and its promise shared by every caller, however many start together; a failed one is dropped, so the next call tries again. */
function sharedUntilFailure<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= make().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}

export function lazySdk<T>(load: () => Promise<T>): LazySdk<T> {
  let module: T | undefined;
  const get = sharedUntilFailure(async () => (module = await load()));
  return { get, loaded: () => module };
}

/** A provider's client, made from its SDK by the first call and shared by every call after it. */
export function lazyClient<T, C>(sdk: LazySdk<T>, make: (module: T) => C): () => Promise<C> {
  return sharedUntilFailure(async () => make(await sdk.get()));
}
