import type { z } from 'zod';
import { InputError } from './errors.js';

/**
 * Parses with a zod schema; failure becomes one InputError line naming the
 * field, as `subject.path` or as `fieldName(path)` when given (CLI flags).
 */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, subject: string, fieldName?: (path: string) => string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new InputError(`${subject}: invalid`);
  const path = issue.path.map(String).join('.');
  const where = fieldName ? fieldName(path) : path ? `${subject}.${path}` : subject;
  const missing = issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined;
  throw new InputError(missing ? `${where}: required but missing` : `${where}: ${issue.message}`);
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key], value);
}
