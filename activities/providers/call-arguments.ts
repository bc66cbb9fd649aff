/**
 * A past tool call's arguments as the JSON object the APIs that take objects
 * expect (Anthropic's `input`, Gemini's `args`): `{}` when the model's JSON
 * was malformed or not an object, which the harness has already counted.
 */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
