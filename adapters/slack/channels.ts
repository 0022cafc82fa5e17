// Channel names for the chatbot's context, from conversations.info, cached per channel for a
// while. A name is a nicety: any failure (missing scope, private channel) just leaves it out.
import { isTransientError } from './features.js';
import { errorCode, type SlackApi } from './web.js';

export const CHANNEL_CACHE_TTL_MS = 10 * 60_000;

interface ConversationInfo {
  name?: unknown;
  is_im?: unknown;
}

interface CachedName {
  name: string | undefined;
  expiresAt: number;
}

export class SlackChannels {
  private readonly cache = new Map<string, CachedName>();
  private readonly pending = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly api: SlackApi,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = CHANNEL_CACHE_TTL_MS,
  ) {}

  /** The channel's name (without "#"); undefined for DMs and when Slack would not say. */
  async nameOf(workspace: string, channel: string): Promise<string | undefined> {
    const key = `${workspace}:${channel}`;
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.name;
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const lookup = this.fetch(workspace, channel).finally(() => this.pending.delete(key));
    this.pending.set(key, lookup);
    return lookup;
  }

  private async fetch(workspace: string, channel: string): Promise<string | undefined> {
    let name: string | undefined;
    try {
      const result = await this.api.call(workspace, 'conversations.info', { channel });
      const info = ((result as { channel?: ConversationInfo }).channel ?? {}) as ConversationInfo;
      name = info.is_im !== true && typeof info.name === 'string' ? info.name : undefined;
    } catch (error) {
      // A refusal (missing scope, not in the channel) is remembered as unknown, so such a
      // workspace is not asked every message; a rate limit or network failure is not.
      const code = errorCode(error);
      if (code === undefined || isTransientError(code)) return undefined;
      name = undefined;
    }
    this.cache.set(`${workspace}:${channel}`, { name, expiresAt: this.now() + this.ttlMs });
    return name;
  }
}
