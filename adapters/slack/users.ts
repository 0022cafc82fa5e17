// Who a Slack user is, from users.info, cached per user for a while: the display name passed to
// the chatbot and whether they administer the workspace (admin, owner, primary owner).
import type { SlackApi } from './web.js';

export interface SlackUser {
  id: string;
  name: string;
  team?: string;
  /** Enterprise Grid: the organization the user belongs to. */
  enterprise?: string;
  isWorkspaceAdmin: boolean;
  isBot: boolean;
}

interface CachedUser {
  user: SlackUser;
  expiresAt: number;
}

interface UsersInfoUser {
  id?: string;
  name?: string;
  real_name?: string;
  team_id?: string;
  enterprise_user?: { enterprise_id?: string };
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_bot?: boolean;
  profile?: { display_name?: string; real_name?: string };
}

export const USER_CACHE_TTL_MS = 10 * 60_000;

export class SlackUsers {
  private readonly cache = new Map<string, CachedUser>();
  private readonly pending = new Map<string, Promise<SlackUser>>();

  constructor(
    private readonly api: SlackApi,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = USER_CACHE_TTL_MS,
  ) {}

  /** The user, from the cache or users.info (one call at a time per user). */
  async get(workspace: string, userId: string): Promise<SlackUser> {
    const key = `${workspace}:${userId}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.user;
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const lookup = this.fetch(workspace, userId).finally(() => this.pending.delete(key));
    this.pending.set(key, lookup);
    return lookup;
  }

  private async fetch(workspace: string, userId: string): Promise<SlackUser> {
    const result = await this.api.call(workspace, 'users.info', { user: userId });
    const raw = ((result as { user?: UsersInfoUser }).user ?? {}) as UsersInfoUser;
    const user: SlackUser = {
      id: userId,
      name:
        raw.profile?.display_name || raw.profile?.real_name || raw.real_name || raw.name || userId,
      ...(raw.team_id ? { team: raw.team_id } : {}),
      ...(raw.enterprise_user?.enterprise_id
        ? { enterprise: raw.enterprise_user.enterprise_id }
        : {}),
      isWorkspaceAdmin: Boolean(raw.is_admin || raw.is_owner || raw.is_primary_owner),
      isBot: Boolean(raw.is_bot),
    };
    this.cache.set(`${workspace}:${userId}`, { user, expiresAt: this.now() + this.ttlMs });
    return user;
  }

  /** A display name, or the id when users.info is unavailable (never fails an answer). */
  async nameOf(workspace: string, userId: string): Promise<string> {
    try {
      return (await this.get(workspace, userId)).name;
    } catch {
      return userId;
    }
  }
}
