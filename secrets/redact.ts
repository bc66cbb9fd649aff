/**
 * Environment variables that hold credentials the harness reads: the
 * providers' keys, Temporal Cloud's and the run store's S3 secret. Any other variable named like a
 * credential (…_API_KEY, …_TOKEN, …_SECRET, …_PASSWORD) is treated as one too.
 */
const SECRET_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'OPENAI_COMPATIBLE_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'TEMPORAL_API_KEY',
  'AWS_SECRET_ACCESS_KEY',
];
const SECRET_NAME = /(^|_)(API_?KEY|TOKEN|SECRET|PASSWORD)$/i;
/** Shorter values are not treated as secrets: replacing them would mangle ordinary text. */
const MIN_SECRET_LENGTH = 6;

const REDACTED = '[redacted]';

/**
 * Credentials of any value, configured or not, in the shapes errors and
 * URLs carry them: key-shaped strings (sk-…, sk-ant-…, masked or not; Google's AIza…),
 * `Bearer`/`Basic` credentials, authorization headers, a URL's password, and
 * query parameters named like a key.
 */
const SHAPES: readonly [RegExp, string][] = [
  [/\bsk-[A-Za-z0-9_*-]{6,}/g, REDACTED],
  // Google API keys: AIza and 35 more characters.
  [/\bAIza[A-Za-z0-9_-]{30,}/g, REDACTED],
  [/\b(Bearer|Basic|Token)(\s+|%20|\+)[A-Za-z0-9._~+/=*-]{6,}/gi, `$1$2${REDACTED}`],
  [
    /\b((?:x-)?api[-_]?key|authorization|x-goog-api-key)(["']?\s*[:=]\s*["']?)(?!\[redacted\]|Bearer\b|Basic\b|Token\b)[^\s"',;&}]{6,}/gi,
    `$1$2${REDACTED}`,
  ],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/?#@]+@/gi, `$1${REDACTED}@`],
  [
    /([?&;](?:[a-z0-9_-]*[_-])?(?:api[_-]?key|key|token|access[_-]?token|auth|password|passwd|pwd|secret|signature|sig)=)[^&\s#"'<>]+/gi,
    `$1${REDACTED}`,
  ],
];

const BASE64_RUN = /[A-Za-z0-9+/_=-]/;

/**
 * The last environment scanned, the credential variables it held and their
 * values: every record written asks, and listing the environment's names
 * costs more than the rest of a record's redaction. So a later ask reads
 * only the known credential variables and the ones the scan found, and scans
 * again when any of them changed (a test, a reloaded key). A variable named
 * like a credential that first appears after the scan is not seen until then.
 */
let scanned:
  | { readonly env: NodeJS.ProcessEnv; readonly names: readonly string[]; readonly signature: string; readonly secrets: string[] }
  | undefined;

const isSecretName = (name: string) => SECRET_VARIABLES.includes(name) || SECRET_NAME.test(name);

function signatureOf(env: NodeJS.ProcessEnv, names: readonly string[]): string {
  let signature = '';
  for (const name of names) signature += `${name}=${env[name] ?? ''}\0`;
  return signature;
}

/** The values of the credentials configured in the environment, longest first. */
export function configuredSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  if (scanned?.env === env && signatureOf(env, scanned.names) === scanned.signature) return scanned.secrets;
  const names = [...new Set([...SECRET_VARIABLES, ...Object.keys(env).filter(isSecretName)])];
  scanned = { env, names, signature: signatureOf(env, names), secrets: scanSecrets(env, names) };
  return scanned.secrets;
}

function scanSecrets(env: NodeJS.ProcessEnv, names: readonly string[]): string[] {
  const values = new Set<string>();
  for (const name of names) {
    const value = env[name]?.trim();
    if (value && value.length >= MIN_SECRET_LENGTH) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * The part of base64(prefix + secret + suffix) that depends on the secret
 * alone, for each of the three alignments a prefix can give it: whatever
 * surrounds the secret (`user:` in a Basic credential), its encoding contains
 * one of these. Standard and URL-safe alphabets.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const total = offset + bytes.length;
    // Character i depends on bytes floor(6i / 8) through floor((6i + 5) / 8).
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * total - 6) / 6);
    const core = encoded.slice(first, last + 1);
    if (core.length >= 8) cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...new Set(cores)];
}

/** Every form a configured secret may take in text: as is, URL- or JSON-escaped. */
function literalForms(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)])];
}

/** Replaces every base64 run that contains `core` (the whole run: the rest of it encodes the secret's neighbours). */
function redactBase64Runs(text: string, core: string): string {
  let out = text;
  for (let at = out.indexOf(core); at !== -1; at = out.indexOf(core, at + REDACTED.length)) {
    let start = at;
    let end = at + core.length;
    while (start > 0 && BASE64_RUN.test(out[start - 1] as string)) start--;
    while (end < out.length && BASE64_RUN.test(out[end] as string)) end++;
    out = `${out.slice(0, start)}${REDACTED}${out.slice(end)}`;
    at = start;
  }
  return out;
}

/** Removes the configured secrets only, in every form (raw, escaped, base64 alone or inside `user:key`). */
export function redactConfigured(text: string, secrets: readonly string[] = configuredSecrets()): string {
  let clean = text;
  for (const secret of secrets) {
    for (const form of literalForms(secret)) clean = clean.split(form).join(REDACTED);
    for (const core of base64Cores(secret)) if (clean.includes(core)) clean = redactBase64Runs(clean, core);
  }
  return clean;
}

/** Whether text holds a configured secret in any form redactConfigured removes. */
export function holdsConfiguredSecret(text: string, secrets: readonly string[] = configuredSecrets()): boolean {
  return secrets.some(
    (secret) => literalForms(secret).some((form) => text.includes(form)) || base64Cores(secret).some((core) => text.includes(core)),
  );
}

/**
 * A message with credentials removed, before it is written to a transcript,
 * printed, or reaches Temporal history: the configured keys in every form,
 * and anything shaped like a credential.
 */
export function redactSecrets(message: string, env: NodeJS.ProcessEnv = process.env): string {
  let clean = redactConfigured(message, configuredSecrets(env));
  for (const [pattern, replacement] of SHAPES) clean = clean.replace(pattern, replacement);
  return clean;
}

/** The same error with its message redacted (its class kept, so an InputError stays one); the stack and cause are dropped. */
export function redactedError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(redactSecrets(String(error)));
  const message = redactSecrets(error.message);
  if (message === error.message && error.cause === undefined) return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
  Object.defineProperty(copy, 'name', { value: error.name, writable: true, configurable: true });
  Object.defineProperty(copy, 'message', { value: message, writable: true, configurable: true });
  Object.defineProperty(copy, 'stack', { value: `${error.name}: ${message}`, writable: true, configurable: true });
  return copy;
}

/** A record (any JSON value) with the configured secrets removed from every string, keys included; unchanged when it holds none. */
export function redactRecord<T>(record: T, secrets: readonly string[] = configuredSecrets()): T {
  if (secrets.length === 0 || !holdsConfiguredSecret(JSON.stringify(record), secrets)) return record;
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return redactConfigured(value, secrets);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [redactConfigured(key, secrets), walk(inner)]));
    return value;
  };
  return walk(record) as T;
}
