/** Environment variables that hold credentials. */
const SECRET_VARIABLES = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENAI_COMPATIBLE_API_KEY', 'TEMPORAL_API_KEY'];
/** Key-shaped strings a provider may echo back, masked or not (sk-…, sk-ant-…). */
const KEY_PATTERN = /\bsk-[A-Za-z0-9_*-]{6,}/g;

/**
 * An error message with credentials removed, before it is written to a
 * transcript or reaches Temporal history: the configured key values, and
 * anything shaped like an API key.
 */
export function redactSecrets(message: string, env: NodeJS.ProcessEnv = process.env): string {
  let clean = message;
  for (const name of SECRET_VARIABLES) {
    const value = env[name];
    if (value && value.length >= 6) clean = clean.split(value).join('[redacted]');
  }
  return clean.replace(KEY_PATTERN, '[redacted]');
}
