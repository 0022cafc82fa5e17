// Slack adapter configuration, read from the environment. Socket Mode when SLACK_APP_TOKEN is set,
// HTTP mode (events, commands and interactivity at /slack/events) with SLACK_SIGNING_SECRET.
// One workspace with SLACK_BOT_TOKEN, or many installed through OAuth (SLACK_CLIENT_ID,
// SLACK_CLIENT_SECRET, SLACK_STATE_SECRET, and CHATBRIDGE_SECRET_KEY to encrypt their tokens).
import { CodedError, ErrorCode } from '../../src/errors.js';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../src/admin/index.js';
import { parseSecretKey, SecretKeyError } from '../../src/state/index.js';

export { DEFAULT_MAX_UPLOAD_BYTES };
export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

/** Many workspaces: each installs the app through /slack/install (HTTP mode only). */
export interface SlackOAuthConfig {
  clientId: string;
  clientSecret: string;
  /** Signs the OAuth state parameter (any replica can finish an install another began). */
  stateSecret: string;
  /** 32 bytes: the installations' bot tokens are encrypted with it (CHATBRIDGE_SECRET_KEY). */
  secretKey: Buffer;
}

export interface SlackAdapterConfig {
  /** One workspace: its bot token. Absent with `oauth`. */
  botToken?: string;
  /** Many workspaces installed through OAuth; exclusive with botToken and appToken. */
  oauth?: SlackOAuthConfig;
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

export class SlackConfigError extends CodedError {
  constructor(message: string) {
    super(ErrorCode.ConfigInvalid, message);
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

const OAUTH_VARIABLES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

/** The OAuth settings when any of the trio is set (then all three and the key are required). */
function oauthFromEnv(env: Record<string, string | undefined>): SlackOAuthConfig | undefined {
  const values = OAUTH_VARIABLES.map((name) => env[name]?.trim() || undefined);
  const [clientId, clientSecret, stateSecret] = values;
  if (values.every((value) => value === undefined)) return undefined;
  const missing = OAUTH_VARIABLES.find((_, i) => values[i] === undefined);
  if (missing) {
    throw new SlackConfigError(
      `${missing}: required for OAuth installs (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET go together)`,
    );
  }
  let secretKey: Buffer;
  try {
    secretKey = parseSecretKey(env.CHATBRIDGE_SECRET_KEY, 'CHATBRIDGE_SECRET_KEY');
  } catch (error) {
    if (!(error instanceof SecretKeyError)) throw error;
    throw new SlackConfigError(
      `${error.message} (OAuth installs keep bot tokens encrypted with it)`,
    );
  }
  return { clientId: clientId!, clientSecret: clientSecret!, stateSecret: stateSecret!, secretKey };
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
  const oauth = oauthFromEnv(env);
  if (!botToken && !appToken && !signingSecret && !oauth) return undefined;
  const common = {
    port: parsePort(env.PORT),
    apiUrl: normaliseApiUrl(env.SLACK_API_URL?.trim() || DEFAULT_SLACK_API_URL),
    admins: parseAdmins(env.CHATBRIDGE_ADMINS),
    maxUploadBytes: parseBytes(env.CHATBRIDGE_MAX_UPLOAD_BYTES),
  };
  if (oauth) {
    if (botToken) {
      throw new SlackConfigError(
        'SLACK_BOT_TOKEN: leave it unset with SLACK_CLIENT_ID (OAuth installs); each workspace installs the app at /slack/install',
      );
    }
    if (appToken) {
      throw new SlackConfigError(
        'SLACK_APP_TOKEN: leave it unset with SLACK_CLIENT_ID; OAuth installs run in HTTP mode (SLACK_SIGNING_SECRET)',
      );
    }
    if (!signingSecret) {
      throw new SlackConfigError('SLACK_SIGNING_SECRET: required for OAuth installs (HTTP mode)');
    }
    return { oauth, signingSecret, ...common };
  }
  if (!botToken) {
    const present = appToken ? 'SLACK_APP_TOKEN' : 'SLACK_SIGNING_SECRET';
    throw new SlackConfigError(
      `SLACK_BOT_TOKEN: required when ${present} is set (or set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for OAuth installs)`,
    );
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
    ...common,
  };
}
