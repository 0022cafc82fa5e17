// Graceful shutdown hand-off on memory and SQLite: a released entry is taken over at once (no
// lease to wait out) with what was recorded; an event handed off is never finished by its old
// holder; only a file, which the next start reads, can be handed off to anyone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Intake } from '../../src/bridge/intake.js';
import { silentLogger } from '../../src/log.js';
import { LocalIntakeStore } from '../../src/state/intake-local.js';
import type { StateStore } from '../../src/state/types.js';
import { openDatabase, type Database } from '../../src/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'chatbridge-handoff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LEASE = 1_000;

function stores(db: Database) {
  const c = { t: 7_000_000 };
  // Renewals far out: the injected clock is what moves here.
  const options = { leaseMs: LEASE, keyTtlMs: 60_000, now: () => c.t, renewEveryMs: 3_600_000 };
  return {
    clock: c,
    a: new LocalIntakeStore(db, options, 'test', 'owner-a'),
    b: new LocalIntakeStore(db, options, 'test', 'owner-b'),
  };
}

describe('intake hand-off on SQLite and memory', () => {
  it('a released entry is taken over at once, with its note; never by a stale release', async () => {
    const { a, b } = stores(openDatabase(join(dir, 'release.sqlite')));
    const kept = await a.queue('discord').keep('k1', 'p1');
    await a.queue('discord').note(kept!.id, '{"opened":[]}');
    expect(await b.queue('discord').claimExpired(10)).toEqual([]);
    await a.queue('discord').release(kept!.id);
    expect(a.queue('discord').held).toBe(0);
    const taken = await b.queue('discord').claimExpired(10);
    expect(taken).toEqual([
      { id: kept!.id, key: 'k1', payload: 'p1', deliveries: 2, note: '{"opened":[]}' },
    ]);
    // The old holder's late release does not free the new holder's entry.
    await a.queue('discord').release(kept!.id);
    expect(await a.queue('discord').claimExpired(10)).toEqual([]);
  });

  it('only a file can be handed off (to the next start); memory cannot', async () => {
    expect(
      await stores(openDatabase(join(dir, 'f.sqlite')))
        .a.queue('x')
        .canHandOff(),
    ).toBe(true);
    expect(await stores(openDatabase(':memory:')).a.queue('x').canHandOff()).toBe(false);
  });

  it('an event handed off is left in the queue: its finish() does nothing', async () => {
    const { a, b } = stores(openDatabase(join(dir, 'intake.sqlite')));
    const intake = new Intake<{ q: string }>({
      platform: 'discord',
      state: { intake: a } as unknown as StateStore,
      log: silentLogger,
      dedupTtlMs: 1_000,
    });
    const work = await intake.keep('discord:message:1', { q: 'hi' });
    await work!.job.record({ sessionUuid: 's1', query: 'hi', opened: [] });
    expect(await work!.job.canHandOff!()).toBe(true);
    await work!.job.handOff!();
    await work!.finish();
    const [taken] = await b.queue('discord').claimExpired(10);
    expect(taken).toMatchObject({ key: 'discord:message:1', deliveries: 2 });
    expect(JSON.parse(taken!.note!)).toEqual({ sessionUuid: 's1', query: 'hi', opened: [] });
  });
});
