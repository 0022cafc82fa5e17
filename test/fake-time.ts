// Fake time for tests that run a real adapter over loopback, as discord.js's throttler tests
// do with fake timers: setTimeout (node:timers' and node:timers/promises' too), clearTimeout and
// Date are faked, so pacing waits, token buckets, edit intervals and reconnect waits (@discordjs/ws
// waits 500 ms on node:timers/promises before it reconnects a dropped shard) run on virtual
// time, while loopback I/O (sockets, setImmediate) runs as usual. settle(p) lets I/O run and
// moves time on in small steps until p settles, so a second of Slack's per-channel pace costs
// milliseconds. Every timer still fires in order at its own virtual time, so the schedules the
// tests assert are the same.
//
// The clock is @sinonjs/fake-timers itself, the library under vi.useFakeTimers: vitest 3 bundles
// a version that finds the next due timer by scanning every pending one, once per timer fired;
// version 15 keeps them in a heap. A test with hundreds of timers pending (an adapter's request
// timeouts, 80 threads at once in the Slack load test) spent a third of its time in that scan.
import { createRequire } from 'node:module';
import { install, type Clock } from '@sinonjs/fake-timers';
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
  const clock: Clock = install({
    now: Date.now(),
    toFake: ['setTimeout', 'clearTimeout', 'Date'],
    // A timer made before the clock was faked is still cleared by clearTimeout (vi.useFakeTimers
    // sets this too). Without it the clear is dropped and the real timer fires later: undici 6
    // (inside @discordjs/rest) then reads a parser that is gone and throws out of the timer,
    // an uncaught error in whichever file the worker runs next.
    shouldClearNativeTimers: true,
  });
  undiciTimers.reset();
  const start = Date.now();
  const pause = (ms: number) => new Promise((resolve) => realSetTimeout(resolve, ms));
  const io = options.ioTurns ? watchIo() : undefined;
  return {
    async settle<T>(promise: Promise<T>): Promise<T> {
      let settled = false;
      const watched = promise.finally(() => (settled = true));
      // A rejection lands mid-step, before the caller awaits what settle returns: marked handled
      // here, or Node reports it as unhandled (the caller still gets the rejection).
      watched.catch(() => {});
      for (let steps = 0; !settled; steps++) {
        // Loopback I/O lands before virtual time moves on.
        await (io ? io.atRest(pause) : pause(2));
        if (settled) break;
        await clock.tickAsync(stepMs);
        if (steps > 100_000) throw new Error('still pending after 100,000 steps of fake time');
      }
      return watched;
    },
    advance: (ms) => clock.tickAsync(ms).then(() => undefined),
    elapsed: () => Date.now() - start,
    restore: () => {
      clock.uninstall();
      undiciTimers.reset();
      io?.stop();
    },
  };
}

/** Runs `body` on fake time (useFakeTime's steps and options), restoring the clock however it ends. */
export async function onFakeTime<T>(
  stepMs: number,
  options: FakeTimeOptions,
  body: (time: FakeTime) => Promise<T>,
): Promise<T> {
  const time = useFakeTime(stepMs, options);
  try {
    return await body(time);
  } finally {
    time.restore();
  }
}
