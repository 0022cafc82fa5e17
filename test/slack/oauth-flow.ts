// Installs workspaces into the adapter as Slack's OAuth flow would: GET /slack/install (Bolt
// redirects to the consent page with a signed state and pins it in a cookie), then the browser
// comes back to GET /slack/oauth_redirect with the code, which the adapter exchanges at the fake's
// oauth.v2.access. Events are delivered with the envelope fields Slack sends an installed app.
import { randomBytes } from 'node:crypto';
import type { SlackOAuthConfig } from '../../adapters/slack/index.js';
import { CLIENT_ID, CLIENT_SECRET } from './fake-oauth.js';
import { ALICE, nextTs, type Harness } from './harness.js';

export const STATE_SECRET = 'test-state-secret';

export function oauthConfig(secretKey: Buffer = randomBytes(32)): SlackOAuthConfig {
  return { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, stateSecret: STATE_SECRET, secretKey };
}

export interface InstallOutcome {
  /** Where /slack/install sent the browser (Slack's consent page). */
  authorize: URL;
  /** The status and page of /slack/oauth_redirect. */
  status: number;
  page: string;
}

/**
 * Runs the install flow through the adapter's routes with the fake's one-time `code`; the
 * browser may come back to another replica (`finishOn`).
 */
export async function installThroughOAuth(
  harness: Harness,
  code: string,
  finishOn: Harness = harness,
): Promise<InstallOutcome> {
  const start = await fetch(`${harness.base}/slack/install`, { redirect: 'manual' });
  await start.text();
  const location = start.headers.get('location');
  if (start.status !== 302 || !location) {
    throw new Error(`/slack/install answered ${start.status} without a redirect`);
  }
  const authorize = new URL(location);
  const state = authorize.searchParams.get('state') ?? '';
  // The browser sends the state cookie back: only its name=value part.
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const query = new URLSearchParams({ code, state });
  const done = await fetch(`${finishOn.base}/slack/oauth_redirect?${query}`, {
    headers: { cookie },
    redirect: 'manual',
  });
  return { authorize, status: done.status, page: await done.text() };
}

let seq = 0;

export interface InstalledEventOptions {
  /** Enterprise Grid org of the workspace. */
  enterprise?: string;
  /** The app is installed org-wide (authorizations carry no team). */
  orgWide?: boolean;
  eventId?: string;
}

/** Delivers an Events API callback from `team` as Slack sends it to an app installed there. */
export async function eventIn(
  harness: Harness,
  team: string,
  event: Record<string, unknown>,
  options: InstalledEventOptions = {},
): Promise<number> {
  const orgWide = options.orgWide === true;
  const body = JSON.stringify({
    token: 'legacy',
    team_id: team,
    ...(options.enterprise ? { enterprise_id: options.enterprise } : {}),
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: options.eventId ?? `EvOAuth${++seq}`,
    event_time: Math.floor(Date.now() / 1000),
    is_enterprise_install: orgWide,
    authorizations: [
      {
        enterprise_id: options.enterprise ?? null,
        team_id: orgWide ? null : team,
        user_id: 'UINSTALLER',
        is_bot: true,
        is_enterprise_install: orgWide,
      },
    ],
    event,
  });
  return (await harness.post(body, 'application/json')).status;
}

/** Alice mentions the bot `botUserId` of an installed workspace in `channel`. */
export function mentionOf(botUserId: string, channel: string, text = 'how do refunds work?') {
  return {
    type: 'app_mention',
    user: ALICE,
    text: `<@${botUserId}> ${text}`,
    ts: nextTs(),
    channel,
  };
}
