/**
 * JavaScript source with every character beyond Latin-1 written as a \u
 * escape. V8 keeps a script's source for as long as the script lives, one
 * byte a character if every character fits in one, else two: a few dashes in
 * comments or prompts double a module's memory. Such characters appear only
 * in comments and in string, template and regular-expression literals, where
 * the escape stands for the same character. Columns after one move; lines do
 * not.
 */
export function latin1Source(code: string): string {
  return code.replace(/[^\u0000-\u00ff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
