// Event de-duplication: the first claim of a key within its TTL wins, every later one loses.
import type { Keyv } from 'keyv';
import type { RedisClient } from './keyv.js';
import type { Dedup } from './types.js';

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs < 1) {
    throw new Error(`dedup ttlMs: must be a positive number of milliseconds, got ${ttlMs}`);
  }
}

/**
 * Redis: one SET NX PX, atomic across every replica sharing the Redis. Expiry is Redis's own
 * (real time), so the injected clock plays no part here.
 */
export class RedisDedup implements Dedup {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  async claim(key: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const reply = await this.redis.set(`${this.prefix}:dedup:${key}`, '1', {
      condition: 'NX',
      expiration: { type: 'PX', value: Math.ceil(ttlMs) },
    });
    return reply === 'OK';
  }
}

/**
 * Memory and SQLite: atomic within one process only (SQLite is a single-process store). The
 * in-process map decides synchronously, before any await, so concurrent claims in this process
 * cannot both win; the keyv namespace carries claims across a restart. Expiry follows the
 * injected clock (the stored deadline), with keyv's own TTL only to let old rows go.
 */
export class LocalDedup implements Dedup {
  private readonly claimed = new Map<string, number>();
  private claimsSinceSweep = 0;

  constructor(
    private readonly space: Keyv<{ expiresAt: number }>,
    private readonly now: () => number,
    private readonly sweepEvery = 1_000,
  ) {}

  async claim(key: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const now = this.now();
    const local = this.claimed.get(key);
    if (local !== undefined && local > now) return false;
    const expiresAt = now + ttlMs;
    this.claimed.set(key, expiresAt);
    if (++this.claimsSinceSweep >= this.sweepEvery) void this.sweep();
    try {
      const stored = await this.space.get(key);
      if (stored !== undefined && stored.expiresAt > now) {
        // Claimed before a restart: keep its deadline.
        this.claimed.set(key, stored.expiresAt);
        return false;
      }
      await this.space.set(key, { expiresAt }, ttlMs);
    } catch (err) {
      // Not recorded: let a later delivery claim it rather than lose the event.
      if (this.claimed.get(key) === expiresAt) this.claimed.delete(key);
      throw err;
    }
    return true;
  }

  /** Forgets expired claims, in memory and in the store (keyv drops expired rows it reads). */
  async sweep(): Promise<void> {
    this.claimsSinceSweep = 0;
    const now = this.now();
    for (const [key, expiresAt] of this.claimed) if (expiresAt <= now) this.claimed.delete(key);
    if (!this.space.iterator) return;
    try {
      for await (const [key, value] of this.space.iterator(undefined)) {
        const entry = value as { expiresAt?: number } | undefined;
        if (typeof key === 'string' && (entry?.expiresAt ?? 0) <= now) await this.space.delete(key);
      }
    } catch {
      // A failed sweep only delays clean-up; the next one tries again.
    }
  }
}
