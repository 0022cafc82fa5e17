// The intake queue on a real Redis: a stream with one consumer group. keep() leaves the entry
// pending for this replica; a live holder keeps it; a dead one (no renewals) loses it to
// XAUTOCLAIM once the lease ran out on Redis's clock; finish() acknowledges and deletes it.
import { createClient } from 'redis';
import type { RedisClient } from '../../src/state/keyv.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openState, type State } from '../../src/state/index.js';
import { hasRedisServer, startRedisServer, type RedisServer } from './redis-server.js';

let server: RedisServer | undefined;
let raw: RedisClient | undefined;
const states: State[] = [];

beforeAll(async () => {
  if (!hasRedisServer) return;
  server = await startRedisServer();
  raw = createClient({ url: server.url }) as unknown as RedisClient; // see RedisClient
  await raw.connect();
});

afterAll(async () => {
  await Promise.all(states.map((state) => state.close()));
  await raw?.close();
  await server?.stop();
});

async function replicas(leaseMs: number): Promise<[State, State, string]> {
  const prefix = `intake-${Math.random().toString(36).slice(2)}`;
  const a = await openState(server!.url, { keyPrefix: prefix, intakeLeaseMs: leaseMs });
  const b = await openState(server!.url, { keyPrefix: prefix, intakeLeaseMs: leaseMs });
  states.push(a, b);
  return [a, b, prefix];
}

/** Polls (no fixed sleep) until check passes; Redis leases run on Redis's clock. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.runIf(hasRedisServer)('intake on Redis', () => {
  it('keeps a key once across replicas, pending for the keeper until finished', async () => {
    const [a, b, prefix] = await replicas(15_000);
    const kept = await a.intake!.queue('slack').keep('slack:message:T:C:1', '{"q":1}');
    expect(kept).toMatchObject({ key: 'slack:message:T:C:1', payload: '{"q":1}', deliveries: 1 });
    expect(await b.intake!.queue('slack').keep('slack:message:T:C:1', '{"q":1}')).toBeUndefined();
    const stream = `${prefix}:intake:slack`;
    expect(await raw!.xLen(stream)).toBe(1);
    const pending = (await raw!.sendCommand(['XPENDING', stream, 'chatbridge'])) as unknown[];
    expect(pending[0]).toBe(1);
    await a.intake!.queue('slack').finish(kept!.id);
    expect(await raw!.xLen(stream)).toBe(0);
    expect(((await raw!.sendCommand(['XPENDING', stream, 'chatbridge'])) as unknown[])[0]).toBe(0);
    // The key outlives the entry: a late redelivery is still a duplicate.
    expect(await b.intake!.queue('slack').keep('slack:message:T:C:1', '{"q":1}')).toBeUndefined();
  });

  it('a live holder keeps its entry; a dead one loses it after the lease, note and all', async () => {
    const lease = 300;
    const [a, b] = await replicas(lease);
    const queueA = a.intake!.queue('slack');
    const queueB = b.intake!.queue('slack');
    const kept = await queueA.keep('k1', 'p1');
    await queueA.note(kept!.id, '{"opened":["1.1"]}');
    // Three leases go by while A renews: B never gets it.
    const start = Date.now();
    while (Date.now() - start < 3 * lease) {
      expect(await queueB.claimExpired(10)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A dies (its renewals stop; the connection is shared with the rest of its state).
    (a.intake as unknown as { close(): void }).close();
    const taken = await until('the takeover', async () => {
      const claimed = await queueB.claimExpired(10);
      return claimed.length > 0 ? claimed : undefined;
    });
    expect(taken).toEqual([
      { id: kept!.id, key: 'k1', payload: 'p1', deliveries: 2, note: '{"opened":["1.1"]}' },
    ]);
    expect(queueB.held).toBe(1);
    // The dead holder's note cannot write over it any more.
    await queueA.note(kept!.id, 'stale');
    await queueB.finish(kept!.id);
    expect(await queueB.claimExpired(10)).toEqual([]);
  });

  it('refuses to keep when the store cannot be reached', async () => {
    const [a] = await replicas(15_000);
    const queue = a.intake!.queue('slack');
    // A closed connection fails at once (no offline queue): the event must not be acknowledged.
    const lost = await openState(server!.url, { keyPrefix: 'gone' });
    const lostQueue = lost.intake!.queue('slack');
    await lost.close();
    await expect(lostQueue.keep('k', 'p')).rejects.toThrow();
    expect(await queue.keep('k-ok', 'p')).toBeDefined();
  });

  it('hands a released entry to a live replica at once, and only to one that sweeps', async () => {
    // A lease far longer than the test: the takeover below is the release's, not the lease's.
    const [a, b] = await replicas(60_000);
    const [queueA, queueB] = [a.intake!.queue('discord'), b.intake!.queue('discord')];
    const kept = await queueA.keep('k1', 'p1');
    // B has not looked for work yet: nobody live to hand off to.
    expect(await queueA.canHandOff()).toBe(false);
    expect(await queueB.claimExpired(10)).toEqual([]);
    expect(await queueA.canHandOff()).toBe(true);
    // B sees no other replica sweeping (A has not yet).
    expect(await queueB.canHandOff()).toBe(false);
    await queueA.release(kept!.id);
    expect(queueA.held).toBe(0);
    const taken = await queueB.claimExpired(10);
    expect(taken).toMatchObject([{ id: kept!.id, key: 'k1', deliveries: 2 }]);
    // A late release by the old holder leaves B's entry alone.
    await queueA.release(kept!.id);
    expect(await queueA.claimExpired(10)).toEqual([]);
    await queueB.finish(kept!.id);
  });
});
