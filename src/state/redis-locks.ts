// Per-thread FIFO across replicas sharing one Redis: a fair ticket lock per thread (scripts in
// lock-scripts.ts). run() takes a ticket at once, so jobs are served in the order run() was
// called (across replicas: the order their tickets reached Redis); it then waits for its turn,
// woken by a pub/sub message when a holder releases, with polling as a fallback (a crashed
// holder publishes nothing). The holder keeps a lease with a random owner token, renewed while
// the job runs; the job's signal aborts when the lease is lost or the maximum lifetime passes.
//
// Failure handling: a crashed holder stops renewing, its lease expires after lockTtlMs and the
// next ticket proceeds. A crashed waiter stops its heartbeat, and the first live waiter behind
// it skips its ticket once the heartbeat deadline (lockTtlMs) passes.
//
// Not a kept library: Redlock and redis-semaphore's mutexes are leases that whoever retries
// first wins, so a thread's messages could be answered out of order across replicas; nothing
// maintained gives a per-key FIFO queue shared by processes. In one process the same contract
// is @sapphire/async-queue (local-locks.ts). The concurrency bound is p-limit, as there.
import pTimeout from 'p-timeout';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { LimitFunction } from 'p-limit';
import type { Logger } from '../log.js';
import { LockLostError, LockUnavailableError } from './errors.js';
import { maskUrl, type RedisClient } from './keyv.js';
import { lockKeys, releaseChannel, runLockScript, type LockKeys } from './lock-scripts.js';
import type { ThreadLocks } from './types.js';

export interface RedisLockOptions {
  redis: RedisClient;
  /** Key prefix shared by all replicas of one deployment. */
  prefix: string;
  /** Bounds the jobs running at once in this process. */
  limiter: LimitFunction;
  /** Lease TTL and waiter heartbeat deadline: how long a crashed process blocks a thread. */
  lockTtlMs: number;
  /** How often a held lease is renewed; a third of lockTtlMs by default. */
  renewEveryMs?: number;
  maxLockLifetimeMs: number;
  logger: Pick<Logger, 'warn'>;
  /** How long opening the subscriber's connection may take. Default 5 s. */
  connectTimeoutMs?: number;
}

const POLL_MIN_MS = 5;

interface Sleep {
  /** Resolves true when woken by a release, false on timeout or cancel. */
  promise: Promise<boolean>;
  cancel(): void;
}

interface Holding {
  threadKey: string;
  controller: AbortController;
  /** Stops renewing, then releases the lease if it is still ours. Idempotent. */
  release(): Promise<void>;
}

export class RedisThreadLocks implements ThreadLocks {
  private readonly sleepers = new Map<string, Set<() => void>>();
  private readonly waiting = new Set<{ keys: LockKeys; ticket?: number; threadKey: string }>();
  private readonly held = new Set<Holding>();
  private readonly idleTtlMs: number;
  private readonly pollMaxMs: number;
  private readonly renewEveryMs: number;
  private closed = false;

  private constructor(
    private readonly options: RedisLockOptions,
    private readonly subscriber: RedisClient,
  ) {
    // Thread keys outlive any holder and waiter, then vanish so forgotten threads cost nothing.
    this.idleTtlMs = options.maxLockLifetimeMs + 10 * options.lockTtlMs;
    // Poll well within the heartbeat deadline, so a live waiter is never taken for dead.
    this.pollMaxMs = Math.max(POLL_MIN_MS, Math.min(250, Math.floor(options.lockTtlMs / 4)));
    this.renewEveryMs = options.renewEveryMs ?? Math.max(1, Math.floor(options.lockTtlMs / 3));
  }

  static async open(options: RedisLockOptions): Promise<RedisThreadLocks> {
    // Subscribing takes a connection of its own. Its opening is bounded as the store's first
    // connection is (keyv.ts): the copy reconnects forever, so a Redis refusing it (at its
    // maxclients) would keep `chatbridge start` waiting, never running and never failing.
    const subscriber = options.redis.duplicate();
    subscriber.on('error', (err: unknown) =>
      options.logger.warn({ error: maskUrl(String(err)) }, 'redis lock subscriber error'),
    );
    const opening = (async () => {
      await subscriber.connect();
      const locks = new RedisThreadLocks(options, subscriber);
      await subscriber.subscribe(releaseChannel(options.prefix), (threadKey: string) =>
        locks.wake(threadKey),
      );
      return locks;
    })();
    opening.catch(() => {}); // its failure after the timeout is this one's
    const timeoutMs = options.connectTimeoutMs ?? 5_000;
    try {
      return await pTimeout(opening, {
        milliseconds: timeoutMs,
        message: `no answer within ${timeoutMs} ms`,
      });
    } catch (err) {
      if (subscriber.isOpen) subscriber.destroy();
      const reason = maskUrl(err instanceof Error ? err.message : String(err));
      throw new Error(`cannot open the lock subscriber's connection to Redis: ${reason}`);
    }
  }

  async run<T>(threadKey: string, job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closed) throw new LockUnavailableError(threadKey, 'store closed');
    const keys = lockKeys(this.options.prefix, threadKey);
    const token = randomUUID();
    // No await before this call: the ticket request leaves in run() order.
    const ticket = await this.waitForTurn(threadKey, keys, token);
    const holding = this.hold(threadKey, keys, token, ticket);
    try {
      return await this.options.limiter(() => {
        if (this.closed) throw new LockUnavailableError(threadKey, 'store closed');
        return job(holding.controller.signal);
      });
    } finally {
      await holding.release();
    }
  }

  /** Takes a ticket and returns it once it is this ticket's turn and the lease is ours. */
  private async waitForTurn(threadKey: string, keys: LockKeys, token: string): Promise<number> {
    const { redis, lockTtlMs } = this.options;
    const waiter: { keys: LockKeys; ticket?: number; threadKey: string } = { keys, threadKey };
    this.waiting.add(waiter);
    let delay = POLL_MIN_MS;
    let failingSince: number | undefined;
    try {
      for (;;) {
        if (this.closed) throw new LockUnavailableError(threadKey, 'store closed');
        // Listen before asking, so a release published while we ask is not missed.
        const sleep = this.sleep(threadKey, delay);
        try {
          waiter.ticket ??= await runLockScript(redis, 'ENQUEUE', keys, [
            lockTtlMs,
            this.idleTtlMs,
          ]);
          const state = await runLockScript(redis, 'ACQUIRE', keys, [
            waiter.ticket,
            token,
            lockTtlMs,
            lockTtlMs,
            this.idleTtlMs,
          ]);
          failingSince = undefined;
          if (state === 1) {
            sleep.cancel();
            return waiter.ticket;
          }
          if (state === -1) {
            // We were taken for dead (a stalled event loop): queue again rather than be dropped.
            this.options.logger.warn(
              { threadKey },
              'thread lock ticket was skipped; queuing again',
            );
            waiter.ticket = undefined;
            sleep.cancel();
            continue;
          }
        } catch (err) {
          failingSince ??= performance.now();
          if (performance.now() - failingSince > lockTtlMs) {
            sleep.cancel();
            const detail = maskUrl(err instanceof Error ? err.message : String(err));
            throw new LockUnavailableError(threadKey, `lock store unreachable: ${detail}`);
          }
        }
        const woken = await sleep.promise;
        delay = woken ? POLL_MIN_MS : Math.min(delay * 2, this.pollMaxMs);
      }
    } catch (err) {
      await this.abandon(waiter);
      throw err;
    } finally {
      this.waiting.delete(waiter);
    }
  }

  /** Starts renewing the lease and the lifetime timer of a lock just acquired. */
  private hold(threadKey: string, keys: LockKeys, token: string, ticket: number): Holding {
    const { redis, lockTtlMs, maxLockLifetimeMs, logger } = this.options;
    const controller = new AbortController();
    let lastRenewed = performance.now();
    let renewTimer: NodeJS.Timeout | undefined;
    let released: Promise<void> | undefined;
    const stop = () => {
      clearTimeout(renewTimer);
      clearTimeout(lifetime);
    };
    const lose = (reason: LockLostError['reason']) => {
      stop();
      if (!controller.signal.aborted) controller.abort(new LockLostError(threadKey, reason));
    };
    // Self-scheduling, so a slow renewal never overlaps the next one.
    const renew = async () => {
      try {
        const ok = await runLockScript(redis, 'RENEW', keys, [token, lockTtlMs, this.idleTtlMs]);
        if (ok === 1) lastRenewed = performance.now();
        else return lose('lease lost');
      } catch {
        // Unsure whether it still holds: only once the lease has surely expired is it lost.
        if (performance.now() - lastRenewed >= lockTtlMs) return lose('lease lost');
      }
      if (!released && !controller.signal.aborted) schedule();
    };
    const schedule = () => {
      renewTimer = setTimeout(() => void renew(), this.renewEveryMs);
    };
    const holding: Holding = {
      threadKey,
      controller,
      release: () => {
        released ??= (async () => {
          stop();
          this.held.delete(holding);
          try {
            await runLockScript(redis, 'RELEASE', keys, [
              token,
              ticket,
              releaseChannel(this.options.prefix),
              threadKey,
              this.idleTtlMs,
            ]);
          } catch (err) {
            // The lease expires by itself; the next ticket proceeds after lockTtlMs.
            logger.warn({ threadKey, error: maskUrl(String(err)) }, 'thread lock release failed');
          }
        })();
        return released;
      },
    };
    // A hung job must not hold its thread forever: the lock is released anyway.
    const lifetime = setTimeout(() => {
      logger.warn({ threadKey }, 'thread job exceeded its maximum lock lifetime');
      lose('max lifetime');
      void holding.release();
    }, maxLockLifetimeMs);
    this.held.add(holding);
    schedule();
    return holding;
  }

  /** Best effort: lets the ticket behind skip ours at once instead of after the deadline. */
  private async abandon(waiter: { keys: LockKeys; ticket?: number; threadKey: string }) {
    if (waiter.ticket === undefined) return;
    const ticket = waiter.ticket;
    waiter.ticket = undefined;
    const channel = releaseChannel(this.options.prefix);
    await runLockScript(this.options.redis, 'ABANDON', waiter.keys, [
      ticket,
      channel,
      waiter.threadKey,
    ]).catch(() => undefined);
  }

  private sleep(threadKey: string, ms: number): Sleep {
    let set = this.sleepers.get(threadKey);
    if (!set) this.sleepers.set(threadKey, (set = new Set()));
    const wakers = set;
    let finish!: (woken: boolean) => void;
    const promise = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), ms);
      const wake = () => finish(true);
      finish = (woken) => {
        clearTimeout(timer);
        wakers.delete(wake);
        if (wakers.size === 0 && this.sleepers.get(threadKey) === wakers) {
          this.sleepers.delete(threadKey);
        }
        resolve(woken);
      };
      wakers.add(wake);
    });
    return { promise, cancel: () => finish(false) };
  }

  private wake(threadKey: string): void {
    for (const wake of [...(this.sleepers.get(threadKey) ?? [])]) wake();
  }

  /**
   * Stops taking jobs: waiters give up their tickets, running jobs see their signal abort and
   * their leases are released, so other replicas carry on at once. Call before closing Redis.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const threadKey of [...this.sleepers.keys()]) this.wake(threadKey);
    await Promise.all([...this.waiting].map((waiter) => this.abandon(waiter)));
    await Promise.all(
      [...this.held].map((holding) => {
        holding.controller.abort(new LockLostError(holding.threadKey, 'store closed'));
        return holding.release();
      }),
    );
    await this.subscriber.close().catch(() => this.subscriber.destroy());
  }
}
