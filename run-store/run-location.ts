import { InputError } from '../core/errors.js';
import { resolve } from 'node:path';

/*
 * A run's location: a directory on a file system every worker sees, or a
 * prefix in an S3-compatible bucket, written s3://bucket/prefix. Either is
 * accepted wherever a run directory is (--out, analyze, status, audit,
 * compare, import --out) and travels as a plain string through Temporal.
 */

const S3_SCHEME = 's3://';

export const isObjectStoreLocation = (location: string) => location.startsWith(S3_SCHEME);

/** A location as the user typed it, made absolute: a path is resolved against the working directory; s3:// is kept, without a trailing slash. */
export function resolveRunLocation(location: string): string {
  return isObjectStoreLocation(location) ? location.replace(/\/+$/, '') : resolve(location);
}

/** The run named `name` under a location that holds runs (an import's --out, a runs/ folder). */
export function childLocation(parent: string, name: string): string {
  return isObjectStoreLocation(parent) ? `${parent.replace(/\/+$/, '')}/${name}` : resolve(parent, name);
}

/** Bucket and key prefix of an s3:// location (the prefix without slashes at either end, possibly empty). */
export function parseObjectStoreLocation(location: string): { bucket: string; prefix: string } {
  const rest = location.slice(S3_SCHEME.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new InputError(`${location}: not an s3://bucket/prefix location (bucket '${bucket}')`);
  return { bucket, prefix };
}
