// Per-workspace pacing of Web API calls under Slack's rate-limit tiers, so that our own pacing,
// not Slack's 429s, decides when a call goes out. One token bucket per workspace and method in
// a rate budget: this process's own, or the state store's (shared by every replica on Redis,
// so two replicas together stay within the workspace's tier), plus a "blocked until" per
// workspace and method from the last Retry-After.
import {
  LocalRateBudget,
  takeWhenFree,
  type BucketShape,
  type RateBudget,
} from '../../src/state/rate-budget.js';

/** Calls per minute Slack allows per workspace (tiers 2, 3, 4; setStatus "special"). */
export const METHOD_LIMITS: Readonly<Record<string, number>> = {
  'chat.startStream': 20,
  'chat.stopStream': 20,
  'chat.appendStream': 100,
  'chat.update': 50,
  'chat.postMessage': 60,
  'reactions.add': 50,
  'reactions.remove': 20,
  'assistant.threads.setStatus': 100,
  // Tier 4: the assistant pane's prompts (once per thread) and title (once per thread).
  'assistant.threads.setSuggestedPrompts': 100,
  'assistant.threads.setTitle': 100,
  // Tier 3 (internal and Marketplace apps): thread context, once per thread new to the bot.
  'conversations.replies': 50,
};

/** Calls per second Slack allows per channel, besides the workspace's tier ("short bursts" allowed). */
export const CHANNEL_LIMITS: Readonly<Record<string, number>> = {
  'chat.postMessage': 1,
};

export interface PacerOptions {
  /** Calls per minute by method; methods not listed are not paced. */
  limits?: Readonly<Record<string, number>>;
  /** Length of the window the limits count over; Slack's is a minute (benchmarks compress it). */
  windowMs?: number;
  now?: () => number;
  /** Where the buckets live; this process's own (on `now`) by default. */
  budget?: RateBudget;
}

/**
 * A bucket of capacity C refilled at r per second lets at most C + 60·r calls through in any
 * minute: C is a quarter of the limit (bursts, such as first words), the rest refills.
 */
export class Pacer {
  private readonly limits: Readonly<Record<string, number>>;
  private readonly windowMs: number;
  private readonly budget: RateBudget;

  constructor(options: PacerOptions = {}) {
    this.limits = options.limits ?? METHOD_LIMITS;
    this.windowMs = options.windowMs ?? 60_000;
    this.budget = options.budget ?? new LocalRateBudget(options.now ?? Date.now);
  }

  private shape(method: string): BucketShape | undefined {
    const perMinute = this.limits[method];
    if (perMinute === undefined) return undefined;
    const capacity = Math.max(1, Math.floor(perMinute / 4));
    // 5% headroom keeps float rounding and clock skew with the server on the safe side.
    const refillPerMs = (Math.max(0, perMinute - capacity) * 0.95) / this.windowMs;
    return { capacity, refillPerMs };
  }

  /** A channel's own bucket for the method: two at once, then its per-second rate (5% under). */
  private channelShape(method: string): BucketShape | undefined {
    const perSecond = CHANNEL_LIMITS[method];
    if (perSecond === undefined) return undefined;
    // Benchmarks compress the window; a channel's second shrinks with it.
    return { capacity: 2, refillPerMs: (perSecond * 0.95 * 60) / this.windowMs };
  }

  private key(workspace: string, method: string): string {
    return `slack:${workspace}:${method}`;
  }

  /** Takes a token if one is available now (0); otherwise the ms until one is. */
  async tryTake(workspace: string, method: string, channel?: string): Promise<number> {
    const perChannel = channel === undefined ? undefined : this.channelShape(method);
    if (perChannel) {
      const wait = await this.budget.take(`${this.key(workspace, method)}:${channel}`, perChannel);
      if (wait > 0) return wait;
    }
    const shape = this.shape(method);
    return shape ? this.budget.take(this.key(workspace, method), shape) : 0;
  }

  /** Waits for a token (the channel's first, where the method has one), then takes it. */
  async take(
    workspace: string,
    method: string,
    signal?: AbortSignal,
    channel?: string,
  ): Promise<void> {
    const perChannel = channel === undefined ? undefined : this.channelShape(method);
    if (perChannel) {
      const key = `${this.key(workspace, method)}:${channel}`;
      await takeWhenFree(this.budget, key, perChannel, signal);
    }
    const shape = this.shape(method);
    if (shape) await takeWhenFree(this.budget, this.key(workspace, method), shape, signal);
  }

  /** Slack answered 429: nothing of this method goes out before Retry-After has passed. */
  async block(workspace: string, method: string, retryAfterMs: number): Promise<void> {
    const shape = this.shape(method);
    if (shape) await this.budget.block(this.key(workspace, method), shape, retryAfterMs);
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
