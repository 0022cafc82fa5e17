// Per-thread arrival order for the steps before a message joins the engine's queue (dedup
// claims, name lookups): without it a later message whose lookups are quicker would reach
// conversation.handle first and be answered first. Keys are dropped when their chain is idle.

export class ArrivalOrder {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `step` once every earlier step of `key` has finished. A step should end as soon as
   * the work it orders has been started (handle() called), not when that work is done.
   */
  async run<T>(key: string, step: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    // Steps never reject into the chain: `done` always resolves, whatever `step` did.
    const tail = previous ? previous.then(() => done) : done;
    this.tails.set(key, tail);
    try {
      if (previous) await previous;
      return await step();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Thread keys with steps waiting or running (tests: nothing is kept when idle). */
  get size(): number {
    return this.tails.size;
  }
}
