// chatbridge's own settings, read from environment variables and validated once at start. The
// variables, their types, defaults and rules are rows of the one table in settings/; platform
// settings (SLACK_*, DISCORD_*) are read from it for their adapters (platforms.ts).
import {
  ConfigError,
  readSettings,
  type CrossCheck,
  type DeprecationWarn,
} from './settings/index.js';

import type { ProxySettings } from './service/dispatchers.js';
import { proxyFromEnv } from './service/proxy.js';

export { ConfigError };

/** Rules between start's settings (each setting's own rule is in the table). */
const checkStart: CrossCheck<'start'> = (e, problem) => {
  if (e.CHATBRIDGE_SERVICE_URL && !e.CHATBRIDGE_API_KEY) {
    problem('CHATBRIDGE_API_KEY', 'is required when CHATBRIDGE_SERVICE_URL is set');
  }
  if (e.EMBEDDINGS_URL && !e.EMBEDDINGS_MODEL) {
    problem(
      'EMBEDDINGS_MODEL',
      "is required when EMBEDDINGS_URL is set (the embedding model's name)",
    );
  }
  if (e.CHATBRIDGE_API_KEY && !e.CHATBRIDGE_SERVICE_URL) {
    problem(
      'CHATBRIDGE_SERVICE_URL',
      'is required when CHATBRIDGE_API_KEY is set (or unset both to run the embedded local service)',
    );
  }
  if (
    e.CHATBRIDGE_LEASE_RENEW_MS !== undefined &&
    e.CHATBRIDGE_LEASE_RENEW_MS >= e.CHATBRIDGE_LEASE_MS
  ) {
    problem('CHATBRIDGE_LEASE_RENEW_MS', 'must be less than CHATBRIDGE_LEASE_MS');
  }
};

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
  /** How often a live replica renews its locks and kept events; a third of the lease if unset. */
  leaseRenewMs?: number;
  /**
   * The standard proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) for a remote service;
   * the platforms read the same (platforms.ts). Checked here, before anything opens.
   */
  proxy?: ProxySettings;
}

/** Reads and validates the environment; every mistake is named in one ConfigError. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  warn?: DeprecationWarn,
): BridgeConfig {
  const e = readSettings('start', env, { warn, check: checkStart });
  const dataDir = e.CHATBRIDGE_DATA_DIR;
  // Only a remote service goes through them: the embedded one (`npm start` with nothing set)
  // neither reads nor checks them, so a machine's own proxy settings never stop the demo.
  const proxy = e.CHATBRIDGE_SERVICE_URL ? proxyFromEnv(env) : undefined;
  return {
    ...(proxy ? { proxy } : {}),
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
    ...(e.CHATBRIDGE_LEASE_RENEW_MS !== undefined
      ? { leaseRenewMs: e.CHATBRIDGE_LEASE_RENEW_MS }
      : {}),
  };
}
