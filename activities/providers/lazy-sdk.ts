/**
 * A provider's SDK, imported by its first call rather than when the module
 * loads: a sweep of reference agents, `status` or `analyze` never pays the
 * SDKs' start-up time and memory (together about 0.8 s and 60 MiB of a fresh
 * process). `loaded()` is the module once a call has imported it; before
 * that no error can be one of the SDK's own.
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
    get: () => (loading ??= load().then((loadedModule) => (module = loadedModule))),
    loaded: () => module,
  };
}
