// Logging with pino. Secrets never reach a log line: every argument and binding is copied through
// a sanitiser before pino sees it. Secret-bearing keys (authorization, apiKey, …token, …secret,
// password, cookie) are redacted at any depth; token-shaped text (Slack xoxb-/xapp-, Discord bot
// tokens, "Bearer …"), secret-named fields written into text ("client_secret":"…") and the exact
// values of configured secrets are masked in every string, error messages and stacks included.
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

const CENSOR = '[Redacted]';
const MAX_DEPTH = 10;

/** Environment variables whose values are masked wherever they appear. */
const SECRET_ENV = [
  'CHATBRIDGE_API_KEY',
  'SERVICE_API_KEY',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'CHATBRIDGE_SECRET_KEY',
  'DISCORD_TOKEN',
  'LLM_API_KEY',
  'EMBEDDINGS_API_KEY',
  // Comma-separated lists: each item is masked.
  'CHATBRIDGE_SERVICE_API_KEYS',
];

// Proxy addresses may carry a password (http://user:password@proxy:3128): it is masked as it
// is written there and as it is sent.
const PROXY_ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

function proxyPasswords(env: NodeJS.ProcessEnv): string[] {
  return PROXY_ENV.flatMap((name) => {
    const value = env[name]?.trim();
    if (!value) return [];
    try {
      const { password } = new URL(value.includes('://') ? value : `http://${value}`);
      return password ? [password, decodeURIComponent(password)] : [];
    } catch {
      return [];
    }
  });
}

/** A key whose value is a secret, whatever its case or separators. */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_\s]/g, '');
  return (
    /(authorization|apikeys?|keys|token|secrets?|password|passwd|cookie|credentials?|privatekey)$/.test(
      k,
    ) || k === 'xapikey'
  );
}

// Slack tokens (xoxb-, xoxp-, xapp-, …), Discord bot tokens, and "Bearer …" values.
const TOKEN_PATTERNS = [
  /\bx(?:ox[abeoprs]|app)-[0-9A-Za-z-]{8,}/g,
  /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}/g,
  /\bBearer\s+[^\s"',]+/gi,
];

// A secret-named field written into text, as JSON or a form ("client_secret":"…",
// refresh_token=…): a client logging its request body (Bolt's, for the OAuth code exchange).
const SECRET_FIELD =
  /(["']?\b[\w-]*(?:secret|password|token)["']?\s*[:=]\s*["']?)(?!\[Redacted\])[^\s"'&,;})\]]+/gi;

/** Masks token-shaped substrings (and the given exact secrets) in free text. */
export function maskSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, CENSOR);
  out = out.replace(SECRET_FIELD, `$1${CENSOR}`);
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(CENSOR);
  return out;
}

function sanitiser(secrets: readonly string[]) {
  const seen = new WeakSet<object>();

  const copyError = (error: Error, depth: number): Error => {
    // Same prototype, so pino's error serializer still reports the type (ServiceError, …).
    const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
    for (const key of Object.getOwnPropertyNames(error)) {
      const descriptor = Object.getOwnPropertyDescriptor(error, key)!;
      if (!('value' in descriptor)) continue;
      const value = isSecretKey(key) ? CENSOR : walk(descriptor.value, depth + 1);
      Object.defineProperty(copy, key, { ...descriptor, value, writable: true });
    }
    return copy;
  };

  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return maskSecrets(value, secrets);
    if (typeof value !== 'object' || value === null) return value;
    if (depth > MAX_DEPTH) return '[Object]';
    if (seen.has(value)) return '[Circular]';
    if (ArrayBuffer.isView(value) || value instanceof Date) return value;
    seen.add(value);
    try {
      if (value instanceof Error) return copyError(value, depth);
      if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        return walk((value as { toJSON: () => unknown }).toJSON(), depth + 1);
      }
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) {
        out[key] =
          isSecretKey(key) && inner != null && inner !== '' ? CENSOR : walk(inner, depth + 1);
      }
      return out;
    } finally {
      seen.delete(value);
    }
  };
  return (value: unknown) => walk(value, 0);
}

export interface LogConfig {
  level?: string;
  name?: string;
  /** Where lines go; defaults to stderr so stdout stays for the console chat. */
  destination?: DestinationStream;
  /** Exact secret values (API keys without a recognisable shape) to mask everywhere. */
  secrets?: string[];
}

export function createLogger(config: LogConfig = {}): Logger {
  const fromEnv = SECRET_ENV.flatMap((name) => (process.env[name] ?? '').split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '')
    .concat(proxyPasswords(process.env));
  // Very short values would mask ordinary words; real keys are long.
  const secrets = [...(config.secrets ?? []), ...fromEnv].filter((s) => s.length >= 8);
  const sanitise = sanitiser(secrets);
  const options: LoggerOptions = {
    name: config.name ?? 'chatbridge',
    level: config.level ?? process.env.LOG_LEVEL ?? 'info',
    hooks: {
      logMethod(args, method) {
        const clean = args.map((arg) => sanitise(arg));
        method.apply(this, clean as Parameters<typeof method>);
      },
    },
  };
  const logger = pino(options, config.destination ?? pino.destination(2));
  // Child bindings do not pass through logMethod. Children are created from their parent's
  // prototype chain, so this one override covers grandchildren too.
  const protoChild = Object.getPrototypeOf(logger).child as Logger['child'];
  logger.child = function (this: Logger, bindings, childOptions) {
    return protoChild.call(this, sanitise(bindings) as typeof bindings, childOptions);
  } as Logger['child'];
  return logger;
}

/** A logger that writes nothing, for library use and tests that do not read logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
