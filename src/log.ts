// Logging with pino. Secrets never reach a log line: known secret-bearing keys are redacted
// wherever they sit (two levels deep), and token-shaped strings are masked in messages too.
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'apiKey',
  'api_key',
  'apikey',
  'token',
  'botToken',
  'appToken',
  'signingSecret',
  'clientSecret',
  'password',
  'secret',
  'cookie',
  'x-api-key',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'DISCORD_TOKEN',
  'CHATBRIDGE_API_KEY',
  'LLM_API_KEY',
];

/** pino redact paths: each key at the top level, one level down, and in headers. */
export const REDACT_PATHS = SECRET_KEYS.flatMap((key) => {
  const safe = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const join = (prefix: string) =>
    safe.startsWith('[') ? `${prefix}${safe}` : `${prefix}.${safe}`;
  return [safe, join('*'), join('headers'), join('req.headers'), join('*.headers')];
});

// Slack tokens (xoxb-, xoxp-, xapp-), Discord bot tokens, and "Bearer …" values.
const TOKEN_PATTERNS = [
  /\bx(?:ox[abprs]|app)-[0-9A-Za-z-]{8,}/g,
  /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}/g,
  /\bBearer\s+[^\s"',]+/gi,
];

/** Masks token-shaped substrings in free text (messages, error strings). */
export function maskSecrets(text: string): string {
  let out = text;
  for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, '[Redacted]');
  return out;
}

export interface LogConfig {
  level?: string;
  name?: string;
  /** Where lines go; defaults to stderr so stdout stays for the console chat. */
  destination?: DestinationStream;
}

export function createLogger(config: LogConfig = {}): Logger {
  const options: LoggerOptions = {
    name: config.name ?? 'chatbridge',
    level: config.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    hooks: {
      // Mask tokens that slipped into the message text itself.
      logMethod(args, method) {
        const masked = args.map((arg) => (typeof arg === 'string' ? maskSecrets(arg) : arg));
        method.apply(this, masked as Parameters<typeof method>);
      },
    },
    formatters: {
      log(object) {
        // Error messages can quote request headers: mask them as well.
        const err = object.err as { message?: unknown } | undefined;
        if (err && typeof err.message === 'string') {
          return { ...object, err: { ...err, message: maskSecrets(err.message) } };
        }
        return object;
      },
    },
  };
  return pino(options, config.destination ?? pino.destination(2));
}

/** A logger that writes nothing, for library use and tests that do not read logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
