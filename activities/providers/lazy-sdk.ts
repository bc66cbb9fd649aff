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

export function lazySdk<T>(load: () => Promise<T>): LazySdk<T> {
  let loading: Promise<T> | undefined;
  let module: T | undefined;
  return {
    // Calls that start together share one import.
    get: () =>
      (loading ??= load().then(
        (loadedModule) => (module = loadedModule),
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      )),
    loaded: () => module,
  };
}

/**
 * A provider's client, made from its SDK by the first call and shared by
 * every call after it, however many start together; a failure to make it is
 * not kept, so the next call tries again.
 */
export function lazyClient<T, C>(sdk: LazySdk<T>, make: (module: T) => C): () => Promise<C> {
  let client: Promise<C> | undefined;
  return () =>
    (client ??= sdk
      .get()
      .then(make)
      .catch((error: unknown) => {
        client = undefined;
        throw error;
      }));
}
