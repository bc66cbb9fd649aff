/**
 * A bad input from the user (config, CLI argument, JSON): its message is one
 * line naming the field, and the CLI answers it with exit code 2.
 */
export class InputError extends Error {
  override readonly name = 'InputError';
}
