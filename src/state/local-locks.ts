// Per-thread FIFO in one process (memory and SQLite stores): an AsyncQueue per thread key
// (@sapphire/async-queue, the queue discord.js's REST handlers wait in). A job starts when the
// job before it in the same thread has settled; jobs of different threads run in parallel, at
// most `maxConcurrent` at once (the shared p-limit, FIFO across threads beyond that). A thread's
// queue is dropped when it drains, so idle threads cost nothing.
import { AsyncQueue } from '@sapphire/async-queue';
import type { LimitFunction } from 'p-limit';
import type { Logger } from '../log.js';
import { LockLostError, LockUnavailableError } from './errors.js';
import type { ThreadLocks } from './types.js';

export interface LocalLockOptions {
  /** Bounds the jobs running at once across threads. */
  limiter: LimitFunction;
  /** After this long the thread's turn passes on even if the job hangs; its signal aborts. */
  maxLockLifetimeMs: number;
  logger: Pick<Logger, 'warn'>;
}

export class LocalThreadLocks implements ThreadLocks {
  /** thread key → its queue, while it has queued or running jobs. */
  private readonly queues = new Map<string, AsyncQueue>();
  private readonly held = new Set<{ controller: AbortController; threadKey: string }>();
  private closed = false;

  constructor(private readonly options: LocalLockOptions) {}

  /** Threads with queued or running jobs (for tests and metrics). */
  get activeThreads(): number {
    return this.queues.size;
  }

  async run<T>(threadKey: string, job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closed) throw new LockUnavailableError(threadKey, 'store closed');
    let queue = this.queues.get(threadKey);
    if (!queue) this.queues.set(threadKey, (queue = new AsyncQueue()));
    await queue.wait();
    let passed = false;
    // Passes the thread's turn to the next job, once (the job ended, or outlived its lifetime).
    const passTurn = () => {
      if (passed) return;
      passed = true;
      queue.shift();
      if (queue.remaining === 0 && this.queues.get(threadKey) === queue) {
        this.queues.delete(threadKey);
      }
    };
    try {
      return await this.options.limiter(() => this.execute(threadKey, job, passTurn));
    } finally {
      passTurn();
    }
  }

  private async execute<T>(
    threadKey: string,
    job: (signal: AbortSignal) => Promise<T>,
    passTurn: () => void,
  ): Promise<T> {
    if (this.closed) throw new LockUnavailableError(threadKey, 'store closed');
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
