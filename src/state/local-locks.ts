// Per-thread FIFO in one process (memory and SQLite stores): a promise chain per thread key.
// A job starts when the job before it in the same thread has settled; jobs of different
// threads run in parallel, at most `maxConcurrent` at once (FIFO across threads beyond that).
// The map entry of a thread is removed when its queue drains, so idle threads cost nothing.
import type { Logger } from '../log.js';
import { LockLostError, LockUnavailableError } from './errors.js';
import type { Limiter } from './limiter.js';
import type { ThreadLocks } from './types.js';

export interface LocalLockOptions {
  limiter: Limiter;
  /** After this long the thread's turn passes on even if the job hangs; its signal aborts. */
  maxLockLifetimeMs: number;
  logger: Pick<Logger, 'warn'>;
}

export class LocalThreadLocks implements ThreadLocks {
  /** thread key → a promise that settles when the last queued job of that thread is done. */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly held = new Set<{ controller: AbortController; threadKey: string }>();
  private closed = false;

  constructor(private readonly options: LocalLockOptions) {}

  /** Threads with queued or running jobs (for tests and metrics). */
  get activeThreads(): number {
    return this.tails.size;
  }

  run<T>(threadKey: string, job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new LockUnavailableError(threadKey, 'store closed'));
    const previous = this.tails.get(threadKey) ?? Promise.resolve();
    let passTurn!: () => void;
    const turnPassed = new Promise<void>((resolve) => (passTurn = resolve));
    // The tail never rejects: it waits for the turn to pass, not for the job's outcome.
    const tail = previous.then(() => turnPassed);
    this.tails.set(threadKey, tail);
    void tail.then(() => {
      if (this.tails.get(threadKey) === tail) this.tails.delete(threadKey);
    });
    return previous.then(() => this.execute(threadKey, job, passTurn));
  }

  private async execute<T>(
    threadKey: string,
    job: (signal: AbortSignal) => Promise<T>,
    passTurn: () => void,
  ): Promise<T> {
    const releaseSlot = await this.options.limiter.acquire();
    if (this.closed) {
      releaseSlot();
      passTurn();
      throw new LockUnavailableError(threadKey, 'store closed');
    }
    const entry = { controller: new AbortController(), threadKey };
    this.held.add(entry);
    // A hung job must not block its thread forever: pass the turn on and tell the job to stop.
    // Its concurrency slot stays taken until it settles, so the bound stays honest.
    const lifetime = setTimeout(() => {
      this.options.logger.warn({ threadKey }, 'thread job exceeded its maximum lock lifetime');
      entry.controller.abort(new LockLostError(threadKey, 'max lifetime'));
      passTurn();
    }, this.options.maxLockLifetimeMs);
    try {
      return await job(entry.controller.signal);
    } finally {
      clearTimeout(lifetime);
      this.held.delete(entry);
      releaseSlot();
      passTurn();
    }
  }

  /** Rejects new jobs and aborts the signals of running ones; queued ones are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const { controller, threadKey } of this.held) {
      controller.abort(new LockLostError(threadKey, 'store closed'));
    }
  }
}
