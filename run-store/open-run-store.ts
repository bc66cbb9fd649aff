import { FsRunStore, runDirectoriesUnder } from './fs-run-store.js';
import { isObjectStoreLocation, resolveRunLocation } from './run-location.js';
import type { RunStore } from './run-store.js';
import { objectStoreRunsUnder, S3RunStore } from './s3-run-store.js';

const stores = new Map<string, RunStore>();

/** The store of a run at `location` (a directory, or s3://bucket/prefix), one per location and process, so its folds are kept. */
export function openRunStore(location: string): RunStore {
  const resolved = resolveRunLocation(location);
  let store = stores.get(resolved);
  if (!store) {
    store = isObjectStoreLocation(resolved) ? new S3RunStore(resolved) : new FsRunStore(resolved);
    stores.set(resolved, store);
  }
  return store;
}

/** Every run under a location: the location itself if it is a run, else the runs directly in it (sorted); none if neither. */
export function runsUnder(location: string): Promise<string[]> {
  const resolved = resolveRunLocation(location);
  return isObjectStoreLocation(resolved) ? objectStoreRunsUnder(resolved) : runDirectoriesUnder(resolved);
}
