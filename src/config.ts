// chatbridge's own settings, read from environment variables and validated once at start.
// Platform settings (SLACK_*, DISCORD_*) are read by their adapters.
import { DEFAULT_MAX_UPLOAD_BYTES } from './admin/local-file.js';
import { z } from 'zod';

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const httpUrl = (name: string) =>
  optionalText.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/i.test(v), {
    message: `${name} must be an http(s) address, like https://app.gpt-trainer.com`,
  });

const wholeNumber = (name: string, min: number, max: number) =>
  optionalText
    .refine((v) => v === undefined || (/^\d+$/.test(v) && +v >= min && +v <= max), {
      message: `${name} must be a whole number from ${min} to ${max}`,
    })
    .transform((v) => (v === undefined ? undefined : Number(v)));

/** An hour: a model loading on slow hardware may be slow, but a timer must stay a timer. */
const LLM_TIMEOUT_MAX_MS = 3_600_000;

const schema = z
  .object({
    CHATBRIDGE_SERVICE_URL: httpUrl('CHATBRIDGE_SERVICE_URL'),
    CHATBRIDGE_API_KEY: optionalText,
    CHATBRIDGE_STORE: optionalText.refine(
      (v) => v === undefined || /^(memory|sqlite|redis|rediss):\/\//i.test(v),
      { message: 'CHATBRIDGE_STORE must start with sqlite://, redis:// or memory://' },
    ),
    CHATBRIDGE_DATA_DIR: optionalText,
    CHATBRIDGE_CHATBOT: optionalText,
    CHATBRIDGE_ADMINS: optionalText,
    CHATBRIDGE_STREAM_DELAY_MS: wholeNumber('CHATBRIDGE_STREAM_DELAY_MS', 0, 10_000),
    CHATBRIDGE_MAX_UPLOAD_BYTES: wholeNumber('CHATBRIDGE_MAX_UPLOAD_BYTES', 1, 100_000_000),
    CHATBRIDGE_DRAIN_MS: wholeNumber('CHATBRIDGE_DRAIN_MS', 0, 600_000),
    PORT: wholeNumber('PORT', 0, 65535),
    LLM_URL: httpUrl('LLM_URL'),
    LLM_MODEL: optionalText,
    LLM_API_KEY: optionalText,
    LLM_FIRST_BYTE_TIMEOUT_MS: wholeNumber('LLM_FIRST_BYTE_TIMEOUT_MS', 1, LLM_TIMEOUT_MAX_MS),
    LLM_IDLE_TIMEOUT_MS: wholeNumber('LLM_IDLE_TIMEOUT_MS', 1, LLM_TIMEOUT_MAX_MS),
    LOG_LEVEL: optionalText.refine(
      (v) =>
        v === undefined ||
        ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(v),
      { message: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent' },
    ),
  })
  .superRefine((env, ctx) => {
    if (env.CHATBRIDGE_SERVICE_URL && !env.CHATBRIDGE_API_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['CHATBRIDGE_API_KEY'],
        message: 'CHATBRIDGE_API_KEY is required when CHATBRIDGE_SERVICE_URL is set',
      });
    }
    if (env.CHATBRIDGE_API_KEY && !env.CHATBRIDGE_SERVICE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['CHATBRIDGE_SERVICE_URL'],
        message:
          'CHATBRIDGE_SERVICE_URL is required when CHATBRIDGE_API_KEY is set (or unset both to run the embedded local service)',
      });
    }
  });

export interface BridgeConfig {
  /** Remote service; undefined runs the local service in-process (the embedded default). */
  service?: { url: string; apiKey: string };
  dataDir: string;
  storeUrl: string;
  defaultChatbot?: string;
  admins: string[];
  streamDelayMs: number;
  maxUploadBytes: number;
  /** The embedded service's language model; timeouts left undefined keep its defaults. */
  llm?: {
    url: string;
    model: string;
    apiKey?: string;
    firstByteTimeoutMs?: number;
    idleTimeoutMs?: number;
  };
  logLevel: string;
  /** HTTP port of /healthz, /readyz, /metrics (and Slack's /slack/events in HTTP mode). */
  port: number;
  /** After SIGTERM, how long answers in progress may go on before they end with a notice. */
  drainMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment; every mistake is named in one ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => issue.message));
  }
  const e = parsed.data;
  const dataDir = e.CHATBRIDGE_DATA_DIR ?? 'data';
  return {
    service:
      e.CHATBRIDGE_SERVICE_URL && e.CHATBRIDGE_API_KEY
        ? { url: e.CHATBRIDGE_SERVICE_URL, apiKey: e.CHATBRIDGE_API_KEY }
        : undefined,
    dataDir,
    storeUrl: e.CHATBRIDGE_STORE ?? `sqlite://${dataDir}/chatbridge.sqlite`,
    defaultChatbot: e.CHATBRIDGE_CHATBOT,
    admins: (e.CHATBRIDGE_ADMINS ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
    streamDelayMs: e.CHATBRIDGE_STREAM_DELAY_MS ?? 15,
    maxUploadBytes: e.CHATBRIDGE_MAX_UPLOAD_BYTES ?? DEFAULT_MAX_UPLOAD_BYTES,
    llm: e.LLM_URL
      ? {
          url: e.LLM_URL,
          model: e.LLM_MODEL ?? 'gpt-4o-mini',
          apiKey: e.LLM_API_KEY,
          firstByteTimeoutMs: e.LLM_FIRST_BYTE_TIMEOUT_MS,
          idleTimeoutMs: e.LLM_IDLE_TIMEOUT_MS,
        }
      : undefined,
    logLevel: e.LOG_LEVEL ?? 'info',
    port: e.PORT ?? 3000,
    drainMs: e.CHATBRIDGE_DRAIN_MS ?? 10_000,
  };
}
