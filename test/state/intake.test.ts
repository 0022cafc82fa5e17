// The intake queue on memory and SQLite: keep holds an entry once per key, finish lets it go
// (the key stays known for its TTL), and an entry whose holder stopped renewing is taken over
// once its lease ran out, by the injected clock, with its note and a delivery count.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LocalIntakeStore } from '../../src/state/intake-local.js';
import { openState } from '../../src/state/index.js';
import { openDatabase, type Database } from '../../src/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'chatbridge-intake-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LEASE = 1_000;
const KEY_TTL = 60_000;

function clock() {
  const c = { t: 5_000_000, now: () => c.t };
  return c;
}

/** Two holders on one database: this process and the one that "crashed" (or restarted). */
function pair(db: Database, now: () => number) {
  // Renewal timers far out: these tests move the injected clock, not real time.
  const options = { leaseMs: LEASE, keyTtlMs: KEY_TTL, now, renewEveryMs: 3_600_000 };
  return {
    a: new LocalIntakeStore(db, options, 'test', 'owner-a'),
    b: new LocalIntakeStore(db, options, 'test', 'owner-b'),
  };
}

const backends = {
  memory: () => openDatabase(':memory:'),
  sqlite: () => openDatabase(join(dir, `intake-${Math.random()}.sqlite`)),
};

for (const [kind, openDb] of Object.entries(backends)) {
  describe(`intake on ${kind}`, () => {
    it('keeps a key once; a redelivery is told so, before and after the answer', async () => {
      const c = clock();
      const { a, b } = pair(openDb(), c.now);
      const kept = await a.queue('slack').keep('slack:message:T:C:1', '{"q":1}');
      expect(kept).toMatchObject({ key: 'slack:message:T:C:1', payload: '{"q":1}', deliveries: 1 });
      expect(a.queue('slack').held).toBe(1);
      expect(await b.queue('slack').keep('slack:message:T:C:1', '{"q":1}')).toBeUndefined();
      // Another platform's queue is another queue.
      expect(await b.queue('discord').keep('slack:message:T:C:1', 'x')).toBeDefined();
      await a.queue('slack').finish(kept!.id);
      expect(a.queue('slack').held).toBe(0);
      c.t += KEY_TTL - 1;
      expect(await b.queue('slack').keep('slack:message:T:C:1', '{"q":1}')).toBeUndefined();
      c.t += 2;
      expect(await b.queue('slack').keep('slack:message:T:C:1', '{"q":1}')).toBeDefined();
    });

    it('takes over an entry only once its lease ran out, with the note', async () => {
      const c = clock();
      const { a, b } = pair(openDb(), c.now);
      const first = await a.queue('slack').keep('k1', 'p1');
      const second = await a.queue('slack').keep('k2', 'p2');
      await a.queue('slack').note(first!.id, '{"opened":["1.1"]}');
      a.close(); // the holder dies: nothing renews its entries
      c.t += LEASE - 1;
      expect(await b.queue('slack').claimExpired(10)).toEqual([]);
      c.t += 1;
      const taken = await b.queue('slack').claimExpired(1);
      expect(taken).toEqual([
        { id: first!.id, key: 'k1', payload: 'p1', deliveries: 2, note: '{"opened":["1.1"]}' },
      ]);
      // Oldest first; the taken entry is held anew (a new lease), the other one is free.
      const rest = await b.queue('slack').claimExpired(10);
      expect(rest.map((e) => e.key)).toEqual(['k2']);
      expect(rest[0]!.id).toBe(second!.id);
      expect(b.queue('slack').held).toBe(2);
      // The dead holder's note no longer writes over the new holder's entry.
      await a.queue('slack').note(first!.id, 'stale');
      c.t += LEASE;
      const again = await b.queue('slack').claimExpired(10);
      expect(again.find((e) => e.key === 'k1')).toMatchObject({
        deliveries: 3,
        note: '{"opened":["1.1"]}',
      });
      await b.queue('slack').finish(first!.id);
      await b.queue('slack').finish(second!.id);
      c.t += LEASE * 10;
      expect(await b.queue('slack').claimExpired(10)).toEqual([]);
    });
  });
}

describe('intake through openState', () => {
  it('on SQLite, what a process held is taken over after its restart', async () => {
    const c = clock();
    const url = `sqlite://${join(dir, 'restart.sqlite')}`;
    const before = await openState(url, { now: c.now, intakeLeaseMs: LEASE });
    const kept = await before.intake!.queue('slack').keep('k', 'payload');
    await before.close();
    const after = await openState(url, { now: c.now, intakeLeaseMs: LEASE });
    try {
      expect(await after.intake!.queue('slack').claimExpired(5)).toEqual([]);
      c.t += LEASE;
      const taken = await after.intake!.queue('slack').claimExpired(5);
      expect(taken).toEqual([{ id: kept!.id, key: 'k', payload: 'payload', deliveries: 2 }]);
    } finally {
      await after.close();
    }
  });

  it('renews what a live process holds every leaseRenewMs, so no other takes it over', async () => {
    const c = clock();
    const url = `sqlite://${join(dir, 'renew.sqlite')}`;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const options = { now: c.now, intakeLeaseMs: LEASE, leaseRenewMs: 100 };
    const [live, other] = [await openState(url, options), await openState(url, options)];
    try {
      await live.intake!.queue('slack').keep('k', 'payload');
      // 100 ms on, with the lease nearly run out by the clock: renewed then, not at a third
      // of the lease (333 ms), so it holds past its first lease.
      c.t += LEASE - 10;
      await vi.advanceTimersByTimeAsync(100);
      c.t += 500;
      expect(await other.intake!.queue('slack').claimExpired(5)).toEqual([]);
    } finally {
      vi.useRealTimers();
      await live.close();
      await other.close();
    }
  });

  it('on memory, keeps and finishes in this process', async () => {
    const state = await openState('memory://');
    try {
      const queue = state.intake!.queue('discord');
      expect(state.intake!.leaseMs).toBe(15_000);
      const kept = await queue.keep('discord:message:1', '{}');
      expect(await queue.keep('discord:message:1', '{}')).toBeUndefined();
      await queue.finish(kept!.id);
      expect(queue.held).toBe(0);
    } finally {
      await state.close();
    }
  });
});
