import { ApplicationFailure } from '@temporalio/common';
import { InputError } from '../core/errors.js';
import { RUN_STORE_FAILURE } from '../protocol/failures.js';

/*
 * File-system errors on the run directory that no retry mends. An activity
 * that hits one fails non-retryably (RUN_STORE_FAILURE), which stops the
 * sweep; the CLI prints it as one line naming the file and the cause, exit 2,
 * as it does when it hits one itself.
 */

/** The causes, as a user reads them. EFBIG (a file-size limit, ulimit -f) is treated as a full disk. */
const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EFBIG: 'file too large (over the file-size limit)',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'a directory is where a file belongs',
  EEXIST: 'a file is where a directory belongs',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
};

export interface FilesystemFault {
  readonly code: string;
  /** The file or directory, when known. */
  readonly path?: string;
  readonly syscall?: string;
}

/** The fault, if the error is one of the file-system errors no retry mends. */
export function filesystemFaultOf(error: unknown): FilesystemFault | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !(code in CAUSES)) return undefined;
  return { code, ...(typeof path === 'string' && { path }), ...(typeof syscall === 'string' && { syscall }) };
}

/** One line: the path, what went wrong, and the code (`runs/x/manifest.json: read-only file system (EROFS)`). */
export function describeFilesystemFault(fault: FilesystemFault, fallbackPath = 'the run directory'): string {
  return `${fault.path ?? fallbackPath}: ${CAUSES[fault.code] ?? fault.code} (${fault.code}${fault.syscall ? `, ${fault.syscall}` : ''})`;
}

/** A file-system error on the run store, reported by the CLI as one line with exit code 2. */
export class RunStoreError extends InputError {}

/**
 * Runs `work`, which reads or writes `path`; a file-system error that does not
 * say which file it hit (a failed write names none) is given `path`, as is one
 * that names the temporary file `path` is written through.
 */
export async function withFile<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (filesystemFaultOf(error)) {
      const errno = error as NodeJS.ErrnoException;
      if (errno.path === undefined || (errno.path.startsWith(`${path}.`) && errno.path.endsWith('.tmp'))) errno.path = path;
    }
    throw error;
  }
}

/** The non-retryable activity failure for a file-system or object-storage error no retry mends (undefined for any other error). */
export function runStoreActivityFailure(error: unknown, fallbackPath?: string): ApplicationFailure | undefined {
  if (error instanceof RunStoreError) {
    // Object storage that refuses the run (no such bucket, bad credentials, no permission): one line, already naming the object.
    return ApplicationFailure.create({ type: RUN_STORE_FAILURE, message: error.message, nonRetryable: true, cause: error });
  }
  const fault = filesystemFaultOf(error);
  if (!fault) return undefined;
  const located = fault.path === undefined && fallbackPath !== undefined ? { ...fault, path: fallbackPath } : fault;
  return ApplicationFailure.create({
    type: RUN_STORE_FAILURE,
    message: describeFilesystemFault(located),
    details: [located],
    nonRetryable: true,
    cause: error as Error,
  });
}
