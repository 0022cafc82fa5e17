// Rate budgets: a token bucket per key (capacity, refill, blocked after a 429), this process's
// own on memory/SQLite, and on Redis one bucket that every replica spends from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRateBudget, openState, type State } from '../../src/state/index.js';
import { hasRedisServer, startRedisServer, type RedisServer } from './redis-server.js';

const shape = { capacity: 3, refillPerMs: 1 / 100 }; // 3 at once, then one per 100 ms

describe('local rate budget', () => {
  it('hands out the capacity, then one token per refill interval; a block holds the key', async () => {
    let now = 0;
    const budget = new LocalRateBudget(() => now);
    expect(await budget.take('k', shape)).toBe(0);
    expect(await budget.take('k', shape)).toBe(0);
    expect(await budget.take('k', shape)).toBe(0);
    expect(await budget.take('k', shape)).toBe(100);
    expect(await budget.take('other', shape)).toBe(0); // keys are independent
    now = 100;
    expect(await budget.take('k', shape)).toBe(0);
    expect(await budget.take('k', shape)).toBe(100);
    await budget.block('k', shape, 5000);
    now = 1000;
    expect(await budget.take('k', shape)).toBe(4100);
    now = 5100;
    expect(await budget.take('k', shape)).toBe(0);
  });
});

let server: RedisServer | undefined;
const states: State[] = [];
beforeAll(async () => {
  if (hasRedisServer) server = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(states.map((s) => s.close()));
  await server?.stop();
});

describe.runIf(hasRedisServer)('redis rate budget', () => {
  it('is one bucket for every replica: tokens spent by one are gone for the other', async () => {
    const prefix = `budget-${process.pid}-${Date.now()}`;
    const a = await openState(server!.url, { keyPrefix: prefix });
    const b = await openState(server!.url, { keyPrefix: prefix });
    states.push(a, b);
    const slow = { capacity: 3, refillPerMs: 1 / 60_000 };
    const taken = await Promise.all(
      [a, b, a, b, a, b].map((state) => state.rateBudget.take('slack:T1:chat.update', slow)),
    );
    expect(taken.filter((wait) => wait === 0)).toHaveLength(3);
    expect(Math.min(...taken.filter((wait) => wait > 0))).toBeGreaterThan(50_000);
    // A 429 seen by one replica holds the method for the other too.
    expect(await b.rateBudget.take('slack:T1:chat.postMessage', slow)).toBe(0);
    await a.rateBudget.block('slack:T1:chat.postMessage', slow, 30_000);
    const wait = await b.rateBudget.take('slack:T1:chat.postMessage', slow);
    expect(wait).toBeGreaterThan(29_000);
    expect(wait).toBeLessThanOrEqual(30_000);
  });
});
