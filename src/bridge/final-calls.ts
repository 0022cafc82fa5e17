// The calls that must happen whatever the surface says (opening a message for the final text,
// finishing one): retried after the wait a rate limit asks for, a few times; any other error
// is logged and the answer moves on, so one refused call never leaves the rest unfinished.
import type { Logger } from '../log.js';
import { sleep, type Clock } from './clock.js';
import { SurfaceRateLimitError } from './types.js';

const MAX_ATTEMPTS = 4;
const MAX_RATE_LIMIT_WAIT_MS = 60_000;

export async function callWithRetry<T>(
  clock: Clock,
  log: Logger,
  what: string,
  call: () => Promise<T>,
): Promise<T | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (error instanceof SurfaceRateLimitError && attempt < MAX_ATTEMPTS) {
        await sleep(clock, Math.min(error.retryAfterMs, MAX_RATE_LIMIT_WAIT_MS));
        continue;
      }
      log.warn({ err: error, attempt }, `${what} failed`);
      return undefined;
    }
  }
}
