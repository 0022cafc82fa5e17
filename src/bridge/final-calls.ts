// The calls that must happen whatever the surface says (opening a message for the final text,
// finishing one): retried after the wait a rate limit asks for, a few times; any other error
// ends the call, so one refused call never leaves the rest unfinished.
import type { Logger } from '../log.js';
import { sleep, type Clock } from './clock.js';
import { SurfaceRateLimitError } from './types.js';

const MAX_ATTEMPTS = 4;
const MAX_RATE_LIMIT_WAIT_MS = 60_000;

export type CallOutcome<T> =
  { ok: true; value: T } | { ok: false; error: unknown; attempts: number };

/** The call's outcome after rate-limit retries; logs nothing (the caller decides what to say). */
export async function attemptWithRetry<T>(
  clock: Clock,
  call: () => Promise<T>,
): Promise<CallOutcome<T>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await call() };
    } catch (error) {
      if (error instanceof SurfaceRateLimitError && attempt < MAX_ATTEMPTS) {
        await sleep(clock, Math.min(error.retryAfterMs, MAX_RATE_LIMIT_WAIT_MS));
        continue;
      }
      return { ok: false, error, attempts: attempt };
    }
  }
}

/** The call's value, or undefined once it failed for good (logged at warn as "<what> failed"). */
export async function callWithRetry<T>(
  clock: Clock,
  log: Logger,
  what: string,
  call: () => Promise<T>,
): Promise<T | undefined> {
  const outcome = await attemptWithRetry(clock, call);
  if (outcome.ok) return outcome.value;
  log.warn({ err: outcome.error, attempt: outcome.attempts }, `${what} failed`);
  return undefined;
}
