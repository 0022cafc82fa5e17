// chatbridge's own settings, read from environment variables and validated once at start. The
// variables, their types, defaults and rules are rows of the one table in settings.ts; platform
// settings (SLACK_*, DISCORD_*) are read by their adapters.
import { z } from 'zod';
import { CodedError, ErrorCode } from './errors.js';
import { currentNames, settingSchema, settingsOf, type DeprecationWarn } from './settings.js';

const START_SETTINGS = settingsOf('start');

const schema = z
  .object(Object.fromEntries(START_SETTINGS.map((s) => [s.name, settingSchema(s)])))
  .superRefine((env, ctx) => {
    if (env.CHATBRIDGE_SERVICE_URL && !env.CHATBRIDGE_API_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['CHATBRIDGE_API_KEY'],
        message: 'is required when CHATBRIDGE_SERVICE_URL is set',
      });
    }
    if (env.EMBEDDINGS_URL && !env.EMBEDDINGS_MODEL) {
      ctx.addIssue({
        code: 'custom',
        path: ['EMBEDDINGS_MODEL'],
        message: "is required when EMBEDDINGS_URL is set (the embedding model's name)",
      });
    }
    if (env.CHATBRIDGE_API_KEY && !env.CHATBRIDGE_SERVICE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['CHATBRIDGE_SERVICE_URL'],
        message:
          'is required when CHATBRIDGE_API_KEY is set (or unset both to run the embedded local service)',
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
  /** The embedded service's embeddings endpoint (semantic retrieval); off when undefined. */
  embeddings?: {
    url: string;
    model: string;
    apiKey?: string;
    timeoutMs?: number;
    questionTimeoutMs?: number;
  };
  logLevel: string;
  /** HTTP port of /healthz, /readyz, /metrics (and Slack's /slack/events in HTTP mode). */
  port: number;
  /** After SIGTERM, how long answers in progress may go on before they end with a notice. */
  drainMs: number;
  /** How long a silent replica's thread locks and kept events last before a takeover. */
  leaseMs: number;
}

export class ConfigError extends CodedError {
  constructor(readonly problems: string[]) {
    super(
      ErrorCode.ConfigInvalid,
      `configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment; every mistake is named in one ConfigError. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  warn?: DeprecationWarn,
): BridgeConfig {
  const parsed = schema.safeParse(currentNames(START_SETTINGS, env, warn));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`),
    );
  }
  // Typed by the table's rows: each value is of its setting's type, defaults applied.
  const e = parsed.data as {
    CHATBRIDGE_SERVICE_URL?: string;
    CHATBRIDGE_API_KEY?: string;
    CHATBRIDGE_STORE?: string;
    CHATBRIDGE_DATA_DIR: string;
    CHATBRIDGE_CHATBOT?: string;
    CHATBRIDGE_ADMINS?: string[];
    CHATBRIDGE_STREAM_DELAY_MS: number;
    CHATBRIDGE_MAX_UPLOAD_BYTES: number;
    CHATBRIDGE_DRAIN_MS: number;
    CHATBRIDGE_LEASE_MS: number;
    PORT: number;
    LOG_LEVEL: string;
    LLM_URL?: string;
    LLM_MODEL?: string;
    LLM_API_KEY?: string;
    LLM_FIRST_BYTE_TIMEOUT_MS?: number;
    LLM_IDLE_TIMEOUT_MS?: number;
    EMBEDDINGS_URL?: string;
    EMBEDDINGS_MODEL?: string;
    EMBEDDINGS_API_KEY?: string;
    EMBEDDINGS_TIMEOUT_MS?: number;
    EMBEDDINGS_QUESTION_TIMEOUT_MS?: number;
  };
  const dataDir = e.CHATBRIDGE_DATA_DIR;
  return {
    service:
      e.CHATBRIDGE_SERVICE_URL && e.CHATBRIDGE_API_KEY
        ? { url: e.CHATBRIDGE_SERVICE_URL, apiKey: e.CHATBRIDGE_API_KEY }
        : undefined,
    dataDir,
    storeUrl: e.CHATBRIDGE_STORE ?? `sqlite://${dataDir}/chatbridge.sqlite`,
    defaultChatbot: e.CHATBRIDGE_CHATBOT,
    admins: e.CHATBRIDGE_ADMINS ?? [],
    streamDelayMs: e.CHATBRIDGE_STREAM_DELAY_MS,
    maxUploadBytes: e.CHATBRIDGE_MAX_UPLOAD_BYTES,
    llm: e.LLM_URL
      ? {
          url: e.LLM_URL,
          model: e.LLM_MODEL ?? 'gpt-4o-mini',
          apiKey: e.LLM_API_KEY,
          firstByteTimeoutMs: e.LLM_FIRST_BYTE_TIMEOUT_MS,
          idleTimeoutMs: e.LLM_IDLE_TIMEOUT_MS,
        }
      : undefined,
    embeddings:
      e.EMBEDDINGS_URL && e.EMBEDDINGS_MODEL
        ? {
            url: e.EMBEDDINGS_URL,
            model: e.EMBEDDINGS_MODEL,
            apiKey: e.EMBEDDINGS_API_KEY,
            timeoutMs: e.EMBEDDINGS_TIMEOUT_MS,
            questionTimeoutMs: e.EMBEDDINGS_QUESTION_TIMEOUT_MS,
          }
        : undefined,
    logLevel: e.LOG_LEVEL,
    port: e.PORT,
    drainMs: e.CHATBRIDGE_DRAIN_MS,
    leaseMs: e.CHATBRIDGE_LEASE_MS,
  };
}
