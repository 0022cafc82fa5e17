// A FIFO counting semaphore: at most `max` holders at once, waiters served in arrival order.
// Bounds how many thread jobs (answer streams) one process runs in parallel.

export class Limiter {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) {
      throw new Error(`maxConcurrent: must be a whole number of at least 1, got ${max}`);
    }
  }

  /** How many slots are held right now. */
  get running(): number {
    return this.active;
  }

  /** How many callers wait for a slot. */
  get queued(): number {
    return this.waiters.length;
  }

  /** Resolves with a release function once a slot is free; call it exactly once. */
  async acquire(): Promise<() => void> {
    if (this.active < this.max) this.active += 1;
    // The releaser hands its slot straight to the next waiter, so `active` stays counted.
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next();
      else this.active -= 1;
    };
  }
}
