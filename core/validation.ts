import type { z } from 'zod';
import { InputError } from './errors.js';

/** Where a value failed, as `subject.path`, or as `fieldName(path)` when given (CLI flags). */
type FieldName = (path: string) => string;

/** One line per issue (each named by its field), in order, without repeats. */
export function issueLines(error: z.ZodError, value: unknown, subject: string, fieldName?: FieldName): string[] {
  const lines = error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const where = fieldName ? fieldName(path) : path ? `${subject}.${path}` : subject;
    const missing = issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined;
    return missing ? `${where}: required but missing` : `${where}: ${issue.message}`;
  });
  return lines.length > 0 ? [...new Set(lines)] : [`${subject}: invalid`];
}

/**
 * Parses with a zod schema; failure becomes one InputError line naming the
 * field, as `subject.path` or as `fieldName(path)` when given (CLI flags).
 */
export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, subject: string, fieldName?: FieldName): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InputError(issueLines(result.error, value, subject, fieldName)[0]);
}

/** Parses with a zod schema: the value, or every error, one line each. */
export function parseAll<T>(
  schema: z.ZodType<T>,
  value: unknown,
  subject: string,
): { value: T; errors: [] } | { value?: never; errors: string[] } {
  const result = schema.safeParse(value);
  return result.success ? { value: result.data, errors: [] } : { errors: issueLines(result.error, value, subject) };
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key], value);
}
