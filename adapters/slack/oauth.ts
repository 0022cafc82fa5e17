// Many workspaces through Bolt's OAuth support (HTTP mode): GET /slack/install sends the
// installer to Slack's consent page (state signed with SLACK_STATE_SECRET and pinned in a
// cookie), GET /slack/oauth_redirect exchanges the code (oauth.v2.access) and stores the
// installation, encrypted, in the state store; Bolt's authorize then finds each workspace's
// token there. app_uninstalled and tokens_revoked delete what they name.
import type { App, AppOptions } from '@slack/bolt';
import type { FetchFunction } from '@slack/web-api';
import type { Logger } from '../../src/log.js';
import { EncryptedInstallations } from '../../src/state/index.js';
import type { Dedup, SealedMap } from '../../src/state/types.js';
import type { SlackOAuthConfig } from './config.js';
import { SlackInstallationStore, type TokensRevoked } from './installations.js';
import { singleUseStateStore } from './oauth-state.js';
import type { WorkspaceAuth } from './workspace-auth.js';

export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';

/** The bot scopes an install asks for: the same list as manifest.yml (a test holds the line). */
export const SLACK_BOT_SCOPES = [
  'app_mentions:read',
  'assistant:write',
  'channels:history',
  'channels:read',
  'chat:write',
  'commands',
  'files:read',
  'files:write',
  'groups:history',
  'groups:read',
  'im:history',
  'im:read',
  'im:write',
  'mpim:history',
  'mpim:read',
  'reactions:write',
  'users:read',
];

/** Slack's consent page beside the configured Web API (slack.com, GovSlack, a test fake). */
function authorizationUrl(apiUrl: string): string {
  return new URL('../oauth/v2/authorize', apiUrl).href;
}

export interface SlackOAuth {
  /** The sealed installations (verifyKey at start). */
  records: EncryptedInstallations;
  store: SlackInstallationStore;
  /** What turns Bolt's OAuth support on (HTTP receiver). */
  appOptions: Pick<
    AppOptions,
    | 'clientId'
    | 'clientSecret'
    | 'stateSecret'
    | 'scopes'
    | 'installationStore'
    | 'installerOptions'
  >;
}

/** The Web API options the installer's own client takes: where, and through what. */
interface WebOptions {
  slackApiUrl: string;
  fetch?: FetchFunction;
}

/** Installs through OAuth, kept encrypted in `sealed` (the state store's installations). */
export function setUpOAuth(
  oauth: SlackOAuthConfig,
  web: WebOptions,
  sealed: SealedMap,
  dedup: Dedup,
  logger: Logger,
  now: () => number,
): SlackOAuth {
  const records = new EncryptedInstallations(sealed, oauth.secretKey, now);
  const store = new SlackInstallationStore(records, logger);
  return { records, store, appOptions: oauthAppOptions(oauth, web, store, dedup) };
}

function oauthAppOptions(
  oauth: SlackOAuthConfig,
  web: WebOptions,
  store: SlackInstallationStore,
  dedup: Dedup,
): SlackOAuth['appOptions'] {
  return {
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    stateSecret: oauth.stateSecret,
    scopes: SLACK_BOT_SCOPES,
    installationStore: store,
    installerOptions: {
      // The install link goes straight to Slack's consent page (an "Add to Slack" button).
      directInstall: true,
      installPath: INSTALL_PATH,
      redirectUriPath: REDIRECT_PATH,
      authorizationUrl: authorizationUrl(web.slackApiUrl),
      stateStore: singleUseStateStore(oauth.stateSecret, dedup),
      // oauth.v2.access goes to the configured Web API too (through the proxy, if one is set).
      clientOptions: web,
    },
  };
}

interface RevocationContext {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

/**
 * app_uninstalled and tokens_revoked (Bolt delivers them without authorizing: the token is
 * already dead). The deletion finishes before Slack gets its 200, so a failure is retried.
 */
export function registerRevocations(
  app: App,
  store: SlackInstallationStore,
  auth: WorkspaceAuth,
  logger: Logger,
): void {
  const whereOf = (context: RevocationContext, body: { team_id?: unknown }) => {
    const teamId = context.teamId ?? (typeof body.team_id === 'string' ? body.team_id : undefined);
    return {
      teamId,
      enterpriseId: context.enterpriseId,
      isEnterpriseInstall: context.isEnterpriseInstall === true,
    };
  };
  app.event('app_uninstalled', async ({ context, body }) => {
    const where = whereOf(context, body);
    auth.forget({ ...where, orgWide: where.isEnterpriseInstall });
    await store.uninstalled(where);
  });
  app.event('tokens_revoked', async ({ context, body, event }) => {
    const where = whereOf(context, body);
    const tokens = (event as { tokens?: TokensRevoked }).tokens ?? {};
    if (await store.revoked(where, tokens)) {
      auth.forget({ ...where, orgWide: where.isEnterpriseInstall });
    } else {
      logger.debug(where, 'slack: tokens_revoked named no bot token of ours');
    }
  });
}
