// Slack adapter configuration, from its settings parsed by the one table (src/settings/slack.ts):
// each value has its own type and rule there; this says how they go together. Socket Mode when
// SLACK_APP_TOKEN is set, HTTP mode (events, commands and interactivity at /slack/events) with
// SLACK_SIGNING_SECRET. One workspace with SLACK_BOT_TOKEN, or many installed through OAuth
// (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET, and CHATBRIDGE_SECRET_KEY to encrypt
// their tokens).
import { CodedError, ErrorCode } from '../../src/errors.js';
import type { ProxySettings } from '../../src/service/index.js';
import type { SettingsOf } from '../../src/settings/index.js';
import { parseSecretKey, SecretKeyError } from '../../src/state/index.js';

/** The Slack settings as the table parses them (blank is unset). */
export type SlackSettings = SettingsOf<'slack'>;

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
  /**
   * The proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) for Web API calls, the Socket Mode
   * WebSocket, OAuth and file transfers; `chatbridge start` reads them.
   */
  proxy?: ProxySettings;
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

const OAUTH_VARIABLES = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

/** The OAuth settings when any of the trio is set (then all three and the key are required). */
function oauthFrom(settings: SlackSettings): SlackOAuthConfig | undefined {
  const values = OAUTH_VARIABLES.map((name) => settings[name]);
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
    secretKey = parseSecretKey(settings.CHATBRIDGE_SECRET_KEY, 'CHATBRIDGE_SECRET_KEY');
  } catch (error) {
    if (!(error instanceof SecretKeyError)) throw error;
    throw new SlackConfigError(
      `${error.message} (OAuth installs keep bot tokens encrypted with it)`,
    );
  }
  return { clientId: clientId!, clientSecret: clientSecret!, stateSecret: stateSecret!, secretKey };
}

/**
 * The Slack configuration, or undefined when no Slack token or secret is set. A half-configured
 * set is an error naming the missing variable.
 */
export function slackConfig(settings: SlackSettings): SlackAdapterConfig | undefined {
  const botToken = settings.SLACK_BOT_TOKEN;
  const appToken = settings.SLACK_APP_TOKEN;
  const signingSecret = settings.SLACK_SIGNING_SECRET;
  const oauth = oauthFrom(settings);
  if (!botToken && !appToken && !signingSecret && !oauth) return undefined;
  const common = {
    port: settings.PORT,
    apiUrl: normaliseApiUrl(settings.SLACK_API_URL),
    admins: settings.CHATBRIDGE_ADMINS ?? [],
    maxUploadBytes: settings.CHATBRIDGE_MAX_UPLOAD_BYTES,
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
