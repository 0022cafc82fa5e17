// The OAuth side of the fake Slack: workspaces (or Enterprise Grid orgs) that can be installed
// with a one-time code through oauth.v2.access, each handed a bot token of its own; tokens can be
// revoked; channels can belong to a workspace, so a call with another workspace's token is
// refused as Slack would (channel_not_found).
import type { Args, Reply } from './fake-state.js';

export const CLIENT_ID = '1111.2222';
export const CLIENT_SECRET = 'test-client-secret';

export interface FakeInstall {
  team: string;
  teamName?: string;
  /** Enterprise Grid: the org the workspace belongs to. */
  enterprise?: string;
  /** An org-wide install (team absent in the answer, as Slack sends it). */
  orgWide?: boolean;
  botUserId: string;
  botId: string;
  /** Installing user. */
  userId: string;
  token: string;
}

export class FakeOAuth {
  /** One-time codes → what they install. */
  private readonly codes = new Map<string, FakeInstall>();
  /** Live bot tokens → their install. */
  private readonly tokens = new Map<string, FakeInstall>();
  private readonly revoked = new Set<string>();
  /** channel → the workspace it belongs to (channels not listed are reachable by any token). */
  readonly channelTeams = new Map<string, string>();
  /** Every oauth.v2.access call's outcome. */
  readonly exchanges: { code: string; ok: boolean; error?: string }[] = [];

  /**
   * Makes a workspace installable: returns the one-time code the consent page would hand back,
   * and the bot token oauth.v2.access will give for it. Channels listed belong to it.
   */
  installable(
    team: string,
    options: Partial<Omit<FakeInstall, 'team' | 'token'>> & { channels?: string[] } = {},
  ): { code: string; token: string; botUserId: string } {
    // Assembled so no token-shaped literal sits in the repo.
    const token = ['xoxb', 'oauth', team.toLowerCase(), String(this.codes.size + 1)].join('-');
    const install: FakeInstall = {
      team,
      botUserId: options.botUserId ?? `UBOT${team}`,
      botId: options.botId ?? `B${team}`,
      userId: options.userId ?? `UINSTALLER${team}`,
      token,
      ...(options.teamName ? { teamName: options.teamName } : {}),
      ...(options.enterprise ? { enterprise: options.enterprise } : {}),
      ...(options.orgWide ? { orgWide: true } : {}),
    };
    const code = `code-${team}-${this.codes.size + 1}`;
    this.codes.set(code, install);
    for (const channel of options.channels ?? []) this.channelTeams.set(channel, team);
    return { code, token, botUserId: install.botUserId };
  }

  /** oauth.v2.access: client credentials in the form or as HTTP Basic, and a one-time code. */
  access(args: Args, authorization: string | undefined): Reply {
    const [id, secret] = authorization?.startsWith('Basic ')
      ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')
      : [args.client_id, args.client_secret];
    const code = String(args.code ?? '');
    const fail = (error: string): Reply => {
      this.exchanges.push({ code, ok: false, error });
      return { ok: false, error };
    };
    if (id !== CLIENT_ID) return fail('invalid_client_id');
    if (secret !== CLIENT_SECRET) return fail('bad_client_secret');
    const install = this.codes.get(code);
    if (!install) return fail('invalid_code');
    this.codes.delete(code);
    this.tokens.set(install.token, install);
    this.exchanges.push({ code, ok: true });
    return {
      ok: true,
      access_token: install.token,
      token_type: 'bot',
      scope: 'app_mentions:read,chat:write',
      bot_user_id: install.botUserId,
      app_id: 'A1',
      team: install.orgWide ? null : { id: install.team, name: install.teamName ?? install.team },
      enterprise: install.enterprise ? { id: install.enterprise, name: install.enterprise } : null,
      is_enterprise_install: install.orgWide === true,
      authed_user: { id: install.userId },
    };
  }

  private installOf(authorization: string | undefined): FakeInstall | undefined {
    if (!authorization?.startsWith('Bearer ')) return undefined;
    const token = authorization.slice('Bearer '.length);
    return this.revoked.has(token) ? undefined : this.tokens.get(token);
  }

  /** The workspace a live OAuth token belongs to. */
  teamOf(authorization: string | undefined): string | undefined {
    return this.installOf(authorization)?.team;
  }

  botUserOf(authorization: string | undefined): string | undefined {
    return this.installOf(authorization)?.botUserId;
  }

  revokedToken(authorization: string | undefined): boolean {
    return !!authorization && this.revoked.has(authorization.replace(/^Bearer /, ''));
  }

  /** Whether a call with this token may touch the channel (BOT_TOKEN and DMs: always). */
  reaches(authorization: string | undefined, channel: string): boolean {
    const owner = this.channelTeams.get(channel);
    const install = this.installOf(authorization);
    return owner === undefined || install === undefined || owner === install.team;
  }

  /** Slack stops accepting the token (an uninstall or a revocation). */
  revoke(token: string): void {
    this.revoked.add(token);
  }

  authTest(authorization: string | undefined): Reply | undefined {
    const install = this.installOf(authorization);
    if (!install) return undefined;
    return {
      ok: true,
      user_id: install.botUserId,
      bot_id: install.botId,
      team_id: install.team,
      user: 'chatbridge',
      team: install.teamName ?? install.team,
      ...(install.enterprise ? { enterprise_id: install.enterprise } : {}),
      ...(install.orgWide ? { url: `https://${install.enterprise}.enterprise.slack.test/` } : {}),
      is_enterprise_install: install.orgWide === true,
    };
  }
}
