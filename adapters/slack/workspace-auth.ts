// Which token and bot user each workspace's calls use. Bolt authorizes every incoming request
// (one bot token, or the installation store with OAuth); a middleware hands that result here, so
// the answer, thread reads, admin replies and file downloads the request causes all go out
// with the token of the workspace they belong to. Nothing here outlives the store: a workspace
// is known only from its latest authorized request, and forgotten when it uninstalls.
import type { webApi } from '@slack/bolt';

type WebClient = InstanceType<typeof webApi.WebClient>;

/** What Bolt's authorize gave for a request (the fields of its context used here). */
export interface AuthorizedContext {
  botToken?: string;
  botUserId?: string;
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

interface Grant {
  token: string;
  botUserId?: string;
  enterpriseId?: string;
  orgWide: boolean;
  client?: WebClient;
}

export class WorkspaceAuth {
  private readonly grants = new Map<string, Grant>();

  constructor(private readonly newClient: (token: string) => WebClient) {}

  /** Remembers the authorization of a request from each of `workspaces` (team ids). */
  remember(workspaces: Iterable<string | undefined>, context: AuthorizedContext): void {
    const token = context.botToken;
    if (!token) return;
    for (const workspace of new Set(workspaces)) {
      if (!workspace) continue;
      const known = this.grants.get(workspace);
      this.grants.set(workspace, {
        token,
        ...(context.botUserId ? { botUserId: context.botUserId } : {}),
        ...(context.enterpriseId ? { enterpriseId: context.enterpriseId } : {}),
        orgWide: context.isEnterpriseInstall === true,
        // A client per workspace, kept while its token stays the same.
        ...(known?.token === token && known.client ? { client: known.client } : {}),
      });
    }
  }

  botUserId(workspace: string): string | undefined {
    return this.grants.get(workspace)?.botUserId;
  }

  /** The Enterprise Grid organization the workspace's installation belongs to, if any. */
  enterpriseId(workspace: string): string | undefined {
    return this.grants.get(workspace)?.enterpriseId;
  }

  token(workspace: string): string | undefined {
    return this.grants.get(workspace)?.token;
  }

  /** A Web API client with the workspace's token; undefined for a workspace never authorized. */
  client(workspace: string): WebClient | undefined {
    const grant = this.grants.get(workspace);
    if (!grant) return undefined;
    grant.client ??= this.newClient(grant.token);
    return grant.client;
  }

  /**
   * Forgets a workspace that uninstalled or whose token was revoked; for an org-wide install,
   * every workspace of the enterprise.
   */
  forget(where: { teamId?: string; enterpriseId?: string; orgWide?: boolean }): void {
    if (where.teamId) this.grants.delete(where.teamId);
    if (!where.orgWide || !where.enterpriseId) return;
    for (const [workspace, grant] of this.grants) {
      if (grant.orgWide && grant.enterpriseId === where.enterpriseId) this.grants.delete(workspace);
    }
  }
}
