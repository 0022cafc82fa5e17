// Per-workspace pacing of Web API calls under Slack's rate-limit tiers, so that our own pacing,
// not Slack's 429s, decides when a call goes out. One token bucket per workspace and method,
// plus a "blocked until" per workspace and method from the last Retry-After.

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
  // Tier 3 (internal and Marketplace apps): thread context, once per thread new to the bot.
  'conversations.replies': 50,
};

export interface PacerOptions {
  /** Calls per minute by method; methods not listed are not paced. */
  limits?: Readonly<Record<string, number>>;
  /** Length of the window the limits count over; Slack's is a minute (benchmarks compress it). */
  windowMs?: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
  blockedUntil: number;
}

/**
 * A bucket of capacity C refilled at r per second lets at most C + 60·r calls through in any
 * minute: C is a quarter of the limit (bursts, such as first words), the rest refills.
 */
export class Pacer {
  private readonly buckets = new Map<string, Bucket>();
  private readonly limits: Readonly<Record<string, number>>;
  private readonly now: () => number;
  private readonly windowMs: number;

  constructor(options: PacerOptions = {}) {
    this.limits = options.limits ?? METHOD_LIMITS;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  private shape(method: string): { capacity: number; perMs: number } | undefined {
    const perMinute = this.limits[method];
    if (perMinute === undefined) return undefined;
    const capacity = Math.max(1, Math.floor(perMinute / 4));
    // 5% headroom keeps float rounding and clock skew with the server on the safe side.
    const perMs = (Math.max(0, perMinute - capacity) * 0.95) / this.windowMs;
    return { capacity, perMs };
  }

  private bucket(workspace: string, method: string): Bucket | undefined {
    const shape = this.shape(method);
    if (!shape) return undefined;
    const key = `${workspace}\u0000${method}`;
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: shape.capacity, updatedAt: now, blockedUntil: 0 };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(
        shape.capacity,
        bucket.tokens + (now - bucket.updatedAt) * shape.perMs,
      );
      bucket.updatedAt = now;
    }
    return bucket;
  }

  /** Milliseconds until a call may go out (0: now). Does not take a token. */
  delay(workspace: string, method: string): number {
    const bucket = this.bucket(workspace, method);
    if (!bucket) return 0;
    const now = this.now();
    const blocked = Math.max(0, bucket.blockedUntil - now);
    if (bucket.tokens >= 1) return blocked;
    const perMs = this.shape(method)!.perMs;
    const refill = perMs > 0 ? Math.ceil((1 - bucket.tokens) / perMs) : this.windowMs;
    return Math.max(blocked, refill);
  }

  /** Takes a token if one is available now; false otherwise. */
  tryTake(workspace: string, method: string): boolean {
    if (this.delay(workspace, method) > 0) return false;
    const bucket = this.bucket(workspace, method);
    if (bucket) bucket.tokens -= 1;
    return true;
  }

  /** Waits for a token, then takes it. */
  async take(workspace: string, method: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (this.tryTake(workspace, method)) return;
      await sleep(this.delay(workspace, method), signal);
    }
  }

  /** Slack answered 429: nothing of this method goes out before Retry-After has passed. */
  block(workspace: string, method: string, retryAfterMs: number): void {
    const bucket = this.bucket(workspace, method);
    if (!bucket) return;
    bucket.blockedUntil = Math.max(bucket.blockedUntil, this.now() + retryAfterMs);
    bucket.tokens = Math.min(bucket.tokens, 0);
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
