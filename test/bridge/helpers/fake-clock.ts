// A fake clock for the engine: timers fire only when the test advances time.
import type { Clock, TimerHandle } from '../../../src/bridge/clock.js';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/** Lets pending promise callbacks run (a few turns of the event loop, no wall-clock wait). */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeClock implements Clock {
  private time = 0;
  private nextId = 1;
  private timers: Timer[] = [];

  now = (): number => this.time;

  setTimer = (fn: () => void, ms: number): TimerHandle => {
    const timer = { id: this.nextId++, at: this.time + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  };

  clearTimer = (handle: TimerHandle): void => {
    this.timers = this.timers.filter((t) => t.id !== handle);
  };

  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward, firing each due timer at its own time, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await flush();
    for (;;) {
      const due = this.timers
        .filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
      await flush();
    }
    this.time = target;
    await flush();
  }

  /** Advances in steps until `done` settles (for flows that wait on timers). */
  async runUntil<T>(done: Promise<T>, stepMs = 100, maxMs = 3_600_000): Promise<T> {
    let settled = false;
    const watched = done.finally(() => {
      settled = true;
    });
    watched.catch(() => {}); // handled here too: a rejection lands mid-step (see test/fake-time.ts)
    for (let spent = 0; !settled && spent <= maxMs; spent += stepMs) await this.advance(stepMs);
    if (!settled) throw new Error(`still pending after ${maxMs} ms of fake time`);
    return watched;
  }
}
