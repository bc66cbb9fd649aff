import { foldersIn, FsRunStore, runDirectoriesUnder } from './fs-run-store.js';
import { isObjectStoreLocation, resolveRunLocation } from './run-location.js';
import type { RunStore } from './run-store.js';
import { objectStoreFoldersIn, objectStoreRunsUnder, S3RunStore } from './s3-run-store.js';

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

/**
 * Whether runs may yet appear at a location that holds none: nothing is there
 * yet, or a sweep is making a run there or in a folder directly in it (it
 * holds that run's lock, and writes the manifest once its Temporal server is up).
 */
export async function runsOnTheirWay(location: string): Promise<boolean> {
  const resolved = resolveRunLocation(location);
  const folders = await (isObjectStoreLocation(resolved) ? objectStoreFoldersIn(resolved) : foldersIn(resolved));
  if (folders === null) return true;
  const holders = await Promise.all([resolved, ...folders].map((at) => openRunStore(at).lockHolder()));
  return holders.some((holder) => holder !== undefined);
}
