// Fake time for tests that run a real adapter over loopback, as discord.js's throttler tests
// do with vi.useFakeTimers: setTimeout, clearTimeout and Date are faked, so pacing waits, token
// buckets and edit intervals run on virtual time, while loopback I/O (sockets, setImmediate)
// runs as usual. settle(p) lets I/O run and moves time on in small steps until p settles, so a
// second of Slack's per-channel pace costs milliseconds. Every timer still fires in order at
// its own virtual time, so the schedules the tests assert are the same.
import { createRequire } from 'node:module';
import { vi } from 'vitest';
import { watchIo } from './io-quiet.js';

// undici's process-wide "fast timer" (its connect and body timeouts) is one setTimeout made on
// first use and refreshed ever after: made under fake time, it stays a fake one, and every
// undici timeout later in the same worker (files share it: isolate: false) never fires.
// restore() resets it, so the next file's first timeout makes a real one; useFakeTime() resets
// it too, so undici's timeouts under fake time run on fake time, not on a real timer an
// earlier file made (a test then waited a real second for a fake-time connect timeout).
const undiciTimers = createRequire(import.meta.url)('undici/lib/util/timers.js') as {
  reset(): void;
};

// Taken before any test fakes timers: the real pause between steps.
const realSetTimeout = globalThis.setTimeout;

export interface FakeTime {
  /** Runs I/O and advances time in steps until `promise` settles; returns its outcome. */
  settle<T>(promise: Promise<T>): Promise<T>;
  /** Moves time on by `ms` (timers due on the way fire, in order). */
  advance(ms: number): Promise<void>;
  /** Virtual milliseconds since useFakeTime(). */
  elapsed(): number;
  restore(): void;
}

interface Timer {
  id: number;
  callAt: number;
  createdAt: number;
  immediate?: boolean;
}

/** The clock's own order (compareTimers in @sinonjs/fake-timers). */
function firesBefore(a: Timer, b: Timer): boolean {
  if (a.callAt !== b.callAt) return a.callAt < b.callAt;
  if (Boolean(a.immediate) !== Boolean(b.immediate)) return Boolean(a.immediate);
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return a.id < b.id;
}

/**
 * The fake clock's table of pending timers, of which for-in (all the clock uses to find the next
 * timer to fire) sees, during a step, only the next to fire. The clock scans every pending timer
 * for each one it fires (vitest 3's @sinonjs/fake-timers), and a test with hundreds pending (a
 * lock's 10-minute lifetime, a minute's timeout per question) spent most of its steps in that
 * scan. A scan picks the first, in the clock's order (due time, immediates first, creation time,
 * id), of the timers due from `from` (never after the clock's now) to `to` (never after the
 * step's end): it is one of those due before now (normally none: they have fired) or the first
 * due at or after now, if that is within the step. A scan that sees only these picks the same
 * timer, so timers fire in the same order. Lookups, additions and removals, and every use
 * outside a step, see them all.
 */
function windowedTimers(now: () => number): { table: object; until(stepEnd: number): void } {
  const timers = new Map<string, Timer>();
  let stepEnd = Infinity;
  const table = new Proxy<Record<string, Timer>>(
    {},
    {
      ownKeys: () => {
        if (stepEnd === Infinity) return [...timers.keys()];
        const at = now();
        const seen: string[] = [];
        let next: [string, Timer] | undefined;
        for (const entry of timers) {
          const timer = entry[1];
          if (timer.callAt < at) seen.push(entry[0]);
          else if (timer.callAt <= stepEnd && (!next || firesBefore(timer, next[1]))) next = entry;
        }
        if (next) seen.push(next[0]);
        return seen;
      },
      getOwnPropertyDescriptor: (_, id) => {
        const timer = typeof id === 'string' ? timers.get(id) : undefined;
        return timer && { value: timer, writable: true, enumerable: true, configurable: true };
      },
      has: (_, id) => typeof id === 'string' && timers.has(id),
      get: (target, id, receiver) =>
        (typeof id === 'string' && timers.get(id)) || Reflect.get(target, id, receiver),
      set: (_, id, timer: Timer) => (timers.set(String(id), timer), true),
      deleteProperty: (_, id) => (timers.delete(String(id)), true),
    },
  );
  return { table, until: (at) => (stepEnd = at) };
}

export interface FakeTimeOptions {
  /**
   * Between steps, turn the event loop until loopback I/O is at rest (test/io-quiet.ts) instead
   * of pausing 2 ms of real time: hundreds of steps cost milliseconds, not seconds. Off by
   * default: a test whose work runs off the loop (a worker, the thread pool) outside any HTTP
   * request would see virtual time race ahead of it.
   */
  ioTurns?: boolean;
}

/** Fakes the clock until restore(); `stepMs` of virtual time per step, 2 ms of real time between. */
export function useFakeTime(stepMs = 50, options: FakeTimeOptions = {}): FakeTime {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  undiciTimers.reset();
  const clock = (globalThis.setTimeout as unknown as { clock: { now: number; timers?: object } })
    .clock;
  const pending = windowedTimers(() => clock.now);
  clock.timers = pending.table;
  const start = Date.now();
  const pause = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));
  const io = options.ioTurns ? watchIo() : undefined;
  return {
    async settle<T>(promise: Promise<T>): Promise<T> {
      let settled = false;
      const watched = promise.finally(() => (settled = true));
      for (let steps = 0; !settled; steps++) {
        // Loopback I/O lands before virtual time moves on.
        await (io ? io.atRest(pause) : pause(2));
        if (settled) break;
        // A step's ticks end by clock.now + stepMs (no setSystemTime here to move them).
        pending.until(clock.now + stepMs);
        try {
          await vi.advanceTimersByTimeAsync(stepMs);
        } finally {
          pending.until(Infinity);
        }
        if (steps > 100_000) throw new Error('still pending after 100,000 steps of fake time');
      }
      return watched;
    },
    advance: (ms) => vi.advanceTimersByTimeAsync(ms).then(() => undefined),
    elapsed: () => Date.now() - start,
    restore: () => {
      vi.useRealTimers();
      undiciTimers.reset();
      io?.stop();
    },
  };
}
