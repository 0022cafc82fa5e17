// The chatbot's rate_limit [count, seconds], counted per chatbot over a sliding window of the
// messages it accepted. The window lives in memory (the fast path) and is written through to
// the store, so a restart keeps the limit; a chatbot's window is read from the store the first
// time it is used after a start. A slot is given back when its message produced no answer.
import type { Keyv } from 'keyv';

export interface RateDecision {
  allowed: boolean;
  /** When refused: time until the oldest counted message leaves the window. */
  retryAfterMs: number;
  /** When allowed: the counted moment, to hand to release() if the message fails. */
  slot?: number;
}

export class SlidingWindowLimiter {
  private readonly accepted = new Map<string, number[]>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly writes = new Map<string, Promise<void>>();

  constructor(
    private readonly now: () => number,
    private readonly store?: Keyv<number[]>,
  ) {}

  private load(key: string): Promise<void> {
    if (this.accepted.has(key) || !this.store) return Promise.resolve();
    let pending = this.loading.get(key);
    if (!pending) {
      const store = this.store;
      pending = (async () => {
        const saved = await store.get(key);
        if (!this.accepted.has(key)) this.accepted.set(key, Array.isArray(saved) ? saved : []);
      })().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Writes are chained per key and each writes the latest window, so order cannot regress. */
  private persist(key: string, windowMs: number): void {
    const store = this.store;
    if (!store) return;
    const previous = this.writes.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => store.set(key, this.accepted.get(key) ?? [], windowMs))
      .then(
        () => undefined,
        () => undefined, // a failed write only weakens the limit across a restart
      );
    this.writes.set(key, next);
    void next.then(() => {
      if (this.writes.get(key) === next) this.writes.delete(key);
    });
  }

  /** Counts the message when it is allowed; a refused message is not counted. */
  async take(key: string, limit: [number, number]): Promise<RateDecision> {
    await this.load(key);
    const [count, seconds] = limit;
    const now = this.now();
    const windowMs = seconds * 1000;
    const recent = (this.accepted.get(key) ?? []).filter((t) => t > now - windowMs);
    if (recent.length >= count) {
      this.accepted.set(key, recent);
      const oldest = recent[recent.length - count] as number;
      return { allowed: false, retryAfterMs: Math.max(0, oldest + windowMs - now) };
    }
    recent.push(now);
    this.accepted.set(key, recent);
    this.persist(key, windowMs);
    return { allowed: true, retryAfterMs: 0, slot: now };
  }

  /** Gives back a slot taken by take() (the message failed before any answer was written). */
  release(key: string, slot: number | undefined, limit: [number, number]): void {
    if (slot === undefined) return;
    const recent = this.accepted.get(key);
    const at = recent?.lastIndexOf(slot) ?? -1;
    if (!recent || at === -1) return;
    recent.splice(at, 1);
    this.persist(key, limit[1] * 1000);
  }

  /** Resolves when every write started so far has reached the store. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes.values()]);
  }
}
