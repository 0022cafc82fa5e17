// A platform's rate budget, kept where every replica sees it. A token bucket per key: capacity
// C, refilled at r per millisecond, lets at most C + r·T calls through in any window of T ms;
// a platform's 429 blocks the key until its Retry-After has passed.
//
//   memory / SQLite   one process: the buckets live in this process
//   Redis             several replicas: one Lua script reads, refills and takes atomically,
//                     on Redis's own clock, so two replicas never spend the same token
//
// Why not rate-limiter-flexible: its limiters count fixed windows, which let twice the limit
// through across a window boundary (or, split finer, cost the bursts first words need). The
// same bucket on both stores keeps one process and many replicas behaving alike.
import type { RedisClient } from './keyv.js';

export interface BucketShape {
  /** Calls that may go at once after a quiet spell. At least 1. */
  capacity: number;
  /** Calls regained per millisecond. */
  refillPerMs: number;
}

export interface RateBudget {
  /** Takes one call from the bucket if one is free now (0), else the ms until one is. */
  take(key: string, shape: BucketShape): Promise<number>;
  /** The platform said 429: nothing is taken from this key for `ms` from now. */
  block(key: string, shape: BucketShape, ms: number): Promise<void>;
}

/** Sleeps until `take` succeeds (or `signal` aborts). */
export async function takeWhenFree(
  budget: RateBudget,
  key: string,
  shape: BucketShape,
  signal?: AbortSignal,
): Promise<void> {
  for (;;) {
    const wait = await budget.take(key, shape);
    if (wait <= 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, wait);
      function done() {
        signal?.removeEventListener('abort', aborted);
        resolve();
      }
      function aborted() {
        clearTimeout(timer);
        reject(signal?.reason);
      }
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }
}

/** How long until an untouched bucket is full again (after which it can be forgotten). */
function idleMs(shape: BucketShape): number {
  return shape.refillPerMs > 0 ? Math.ceil(shape.capacity / shape.refillPerMs) : 60_000;
}

interface Bucket {
  tokens: number;
  at: number;
  blockedUntil: number;
}

export class LocalRateBudget implements RateBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  private refill(key: string, shape: BucketShape): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: shape.capacity, at: now, blockedUntil: 0 };
      this.buckets.set(key, bucket);
      if (this.buckets.size > 10_000) this.sweep(now, shape);
      return bucket;
    }
    bucket.tokens = Math.min(shape.capacity, bucket.tokens + (now - bucket.at) * shape.refillPerMs);
    bucket.at = now;
    return bucket;
  }

  private sweep(now: number, shape: BucketShape): void {
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.at > idleMs(shape) && bucket.blockedUntil <= now) this.buckets.delete(key);
    }
  }

  async take(key: string, shape: BucketShape): Promise<number> {
    return this.takeNow(key, shape);
  }

  /** take() without the promise, for callers that pace synchronously. */
  takeNow(key: string, shape: BucketShape): number {
    const bucket = this.refill(key, shape);
    const blocked = bucket.blockedUntil - this.now();
    if (blocked > 0) return blocked;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return shape.refillPerMs > 0 ? Math.ceil((1 - bucket.tokens) / shape.refillPerMs) : 60_000;
  }

  async block(key: string, shape: BucketShape, ms: number): Promise<void> {
    const bucket = this.refill(key, shape);
    bucket.blockedUntil = Math.max(bucket.blockedUntil, this.now() + ms);
    bucket.tokens = Math.min(bucket.tokens, 0);
  }
}

/**
 * KEYS[1]: the bucket. ARGV: capacity, refill per ms, "take" or "block", block ms.
 * Returns the ms to wait (0: a token was taken). Redis's clock, so replicas agree.
 */
const BUCKET_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'blocked')
local tokens = tonumber(b[1]) or capacity
local at = tonumber(b[2]) or now
local blocked = tonumber(b[3]) or 0
tokens = math.min(capacity, tokens + math.max(0, now - at) * per)
local wait = 0
if ARGV[3] == 'block' then
  blocked = math.max(blocked, now + tonumber(ARGV[4]))
  tokens = math.min(tokens, 0)
elseif blocked > now then
  wait = blocked - now
elseif tokens >= 1 then
  tokens = tokens - 1
elseif per > 0 then
  wait = math.ceil((1 - tokens) / per)
else
  wait = 60000
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now, 'blocked', blocked)
local full = per > 0 and math.ceil(capacity / per) or 60000
redis.call('PEXPIRE', KEYS[1], math.max(full, blocked - now) + 1000)
return wait
`;

export class RedisRateBudget implements RateBudget {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private async run(key: string, shape: BucketShape, mode: string, ms = 0): Promise<number> {
    const reply = await this.redis.eval(BUCKET_SCRIPT, {
      keys: [`${this.prefix}:rate:${key}`],
      arguments: [String(shape.capacity), String(shape.refillPerMs), mode, String(ms)],
    });
    return Number(reply);
  }

  take(key: string, shape: BucketShape): Promise<number> {
    return this.run(key, shape, 'take');
  }

  async block(key: string, shape: BucketShape, ms: number): Promise<void> {
    await this.run(key, shape, 'block', Math.ceil(ms));
  }
}
