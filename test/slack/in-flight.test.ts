// The Slack adapter's answers in progress: idle() waits for every tracked job, including ones
// tracked while it waits, and a failed job is logged, never thrown.
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../adapters/slack/in-flight.js';
import { silentLogger, type Logger } from '../../src/log.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('InFlight', () => {
  it('idle() waits for jobs tracked before and while it waits', async () => {
    const jobs = new InFlight(silentLogger);
    const first = deferred();
    const second = deferred();
    jobs.track(first.promise);
    expect(jobs.size).toBe(1);
    let idle = false;
    const waiting = jobs.idle().then(() => (idle = true));
    jobs.track(second.promise);
    first.resolve();
    await first.promise;
    await Promise.resolve();
    expect(idle).toBe(false);
    second.resolve();
    await waiting;
    expect(idle).toBe(true);
    expect(jobs.size).toBe(0);
  });

  it('logs a failed job and forgets it', async () => {
    const errors: unknown[] = [];
    const logger = { ...silentLogger, error: (o: unknown) => errors.push(o) } as unknown as Logger;
    const jobs = new InFlight(logger);
    const job = deferred();
    jobs.track(job.promise);
    job.reject(new Error('boom'));
    await jobs.idle();
    expect(errors).toHaveLength(1);
    expect(jobs.size).toBe(0);
  });
});
