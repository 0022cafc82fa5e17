// Keeps the engine's FIFO promise true on Discord: the steps before `conversation.handle`
// (de-duplication, routing lookups, reset) are awaited, so a later message in a thread could
// otherwise reach handle() first. Per key, each message's preparation waits for the previous
// one's handle() call; the answers themselves still run in the engine's own queue.

/** What a preparation started: the answer to await outside the chain, or nothing to answer. */
export type Started = { answered: Promise<void> } | undefined;

export class ArrivalOrder {
  private readonly tails = new Map<string, Promise<void>>();

  /** Keys with a preparation pending or running (idle keys are removed). */
  get size(): number {
    return this.tails.size;
  }

  /**
   * Runs `prepare` after every earlier preparation of this key finished, then waits for the
   * answer it started. Call synchronously on arrival: the place in line is taken at once.
   */
  async run(key: string, prepare: () => Promise<Started>): Promise<void> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tails.set(key, mine);
    let started: Started;
    try {
      if (previous) await previous;
      started = await prepare();
    } finally {
      release();
      if (this.tails.get(key) === mine) this.tails.delete(key);
    }
    if (started) await started.answered;
  }
}
