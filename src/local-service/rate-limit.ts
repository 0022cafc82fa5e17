// The chatbot's rate_limit [count, seconds], counted per chatbot over a sliding window of the
// messages it accepted. Kept in memory: a restart forgets the window (documented limitation).

export interface RateDecision {
  allowed: boolean;
  /** When refused: time until the oldest counted message leaves the window. */
  retryAfterMs: number;
}

export class SlidingWindowLimiter {
  private readonly accepted = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  /** Counts the message when it is allowed; a refused message is not counted. */
  take(key: string, limit: [number, number]): RateDecision {
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
    return { allowed: true, retryAfterMs: 0 };
  }
}
