// The lease side of the intake queue (intake-local.ts, intake-redis.ts): one timer per store
// renews every entry this process holds, a third of the lease apart, so a live holder never
// loses an entry and a dead one loses it a lease after its last renewal.
import type { Logger } from '../log.js';

export interface IntakeOptions {
  /** How long a silent holder keeps an entry before a takeover. */
  leaseMs: number;
  /** How long a finished entry's key stays known (a redelivery after the answer is dropped). */
  keyTtlMs: number;
  /** Clock of the leases on memory and SQLite (Redis leases run on Redis's own clock). */
  now: () => number;
  /** Renewal period; a third of the lease by default. */
  renewEveryMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

type Renew = () => Promise<boolean>;

export class LeaseRenewer {
  private readonly watched = new Map<object, Map<string, Renew>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: IntakeOptions) {}

  /** Renews the entry until forget(); a renewal that finds it no longer ours drops it. */
  watch(queue: object, id: string, renew: Renew): void {
    if (this.stopped) return;
    let entries = this.watched.get(queue);
    if (!entries) this.watched.set(queue, (entries = new Map()));
    entries.set(id, renew);
    this.timer ??= this.startTimer();
  }

  forget(queue: object, id: string): void {
    const entries = this.watched.get(queue);
    entries?.delete(id);
    if (entries?.size === 0) this.watched.delete(queue);
    if (this.watched.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** No more renewals: what is held stays held until its lease runs out (a takeover). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.watched.clear();
  }

  // A timeout renewed after each round, not setInterval: the same timer kind as the sweeps and
  // the lease clock's Date, so a faked clock moves them together (and rounds never overlap).
  private startTimer(): NodeJS.Timeout {
    const every = this.options.renewEveryMs ?? Math.max(5, Math.floor(this.options.leaseMs / 3));
    const timer = setTimeout(() => {
      void this.renewAll().finally(() => {
        if (this.timer === timer && !this.stopped) this.timer = this.startTimer();
      });
    }, every);
    // Renewals alone never keep the process alive.
    timer.unref();
    return timer;
  }

  private async renewAll(): Promise<void> {
    for (const [queue, entries] of this.watched) {
      for (const [id, renew] of entries) {
        try {
          if (!(await renew())) this.forget(queue, id);
        } catch (error) {
          // The store is unreachable: the next period tries again; the lease may run out.
          this.options.logger?.warn({ err: error, id }, 'intake: lease renewal failed');
        }
      }
    }
  }
}
