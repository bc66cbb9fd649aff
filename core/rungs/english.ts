/** Small English helpers for rendered prompts. */

export const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

export const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** "4", "4 and 6", "4, 6 and 9". */
export function listing(items: readonly (string | number)[]): string {
  const words = items.map(String);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
