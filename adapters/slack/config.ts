// Slack adapter configuration, read from the environment. Socket Mode when SLACK_APP_TOKEN is set,
// HTTP mode (events, commands and interactivity at /slack/events) with SLACK_SIGNING_SECRET.
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../src/admin/index.js';

export { DEFAULT_MAX_UPLOAD_BYTES };
export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

export interface SlackAdapterConfig {
  botToken: string;
  /** App-level token (xapp-…): Socket Mode. */
  appToken?: string;
  /** HTTP mode: verifies request signatures. Required when appToken is absent. */
  signingSecret?: string;
  /** HTTP mode listening port (0: any free port). */
  port: number;
  /** HTTP mode listening host; all interfaces when absent. */
  host?: string;
  /** Web API base URL, ending in "/". */
  apiUrl: string;
  /** User ids that may run admin commands besides workspace admins and owners. */
  admins: string[];
  /** Largest file `/chatbridge source upload` accepts. */
  maxUploadBytes: number;
}

export class SlackConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlackConfigError';
  }
}

/** Adds the trailing slash the Web API client joins method names onto. */
export function normaliseApiUrl(url: string, variable = 'SLACK_API_URL'): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SlackConfigError(`${variable}: must be an absolute http(s) URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new SlackConfigError(`${variable}: must be an absolute http(s) URL`);
  }
  return parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 3000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new SlackConfigError('PORT: must be an integer from 0 to 65535');
  }
  return port;
}

function parseBytes(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_MAX_UPLOAD_BYTES;
  const bytes = Number(raw);
  if (!Number.isInteger(bytes) || bytes <= 0) {
    throw new SlackConfigError('CHATBRIDGE_MAX_UPLOAD_BYTES: must be a positive integer');
  }
  return bytes;
}

/** Comma- or space-separated Slack user ids (U…/W…). */
export function parseAdmins(raw: string | undefined): string[] {
  if (!raw) return [];
  return raw
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter((id) => id !== '');
}

/**
 * The Slack configuration, or undefined when no Slack variable is set. A half-configured
 * environment is an error naming the missing variable.
 */
export function slackConfigFromEnv(
  env: Record<string, string | undefined>,
): SlackAdapterConfig | undefined {
  const botToken = env.SLACK_BOT_TOKEN?.trim() || undefined;
  const appToken = env.SLACK_APP_TOKEN?.trim() || undefined;
  const signingSecret = env.SLACK_SIGNING_SECRET?.trim() || undefined;
  if (!botToken && !appToken && !signingSecret) return undefined;
  if (!botToken) {
    const present = appToken ? 'SLACK_APP_TOKEN' : 'SLACK_SIGNING_SECRET';
    throw new SlackConfigError(`SLACK_BOT_TOKEN: required when ${present} is set`);
  }
  if (!botToken.startsWith('xoxb-')) {
    throw new SlackConfigError('SLACK_BOT_TOKEN: must be a bot token starting with xoxb-');
  }
  if (appToken && !appToken.startsWith('xapp-')) {
    throw new SlackConfigError('SLACK_APP_TOKEN: must be an app-level token starting with xapp-');
  }
  if (!appToken && !signingSecret) {
    throw new SlackConfigError(
      'SLACK_SIGNING_SECRET: required for HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)',
    );
  }
  return {
    botToken,
    ...(appToken ? { appToken } : {}),
    ...(signingSecret ? { signingSecret } : {}),
    port: parsePort(env.PORT),
    apiUrl: normaliseApiUrl(env.SLACK_API_URL?.trim() || DEFAULT_SLACK_API_URL),
    admins: parseAdmins(env.CHATBRIDGE_ADMINS),
    maxUploadBytes: parseBytes(env.CHATBRIDGE_MAX_UPLOAD_BYTES),
  };
}
