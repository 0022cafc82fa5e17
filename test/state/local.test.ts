// memory:// and sqlite:// stores: the contract, plus what the injected clock and the
// in-process queue make testable.
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sqlite.js';
import { LockLostError, openState, type State } from '../../src/state/index.js';
import { maskUrl, openKeyvStore, storeKind } from '../../src/state/keyv.js';
import type { LocalThreadLocks } from '../../src/state/local-locks.js';
import { deferred, stateContract, unique, within } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'chatbridge-state-'));
const sqliteUrl = `sqlite://${join(dir, 'nested', 'state.sqlite')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

stateContract('memory', { open: (options) => openState('memory://', options), persistent: false });
stateContract('sqlite', { open: (options) => openState(sqliteUrl, options), persistent: true });

for (const url of ['memory://', sqliteUrl]) {
  describe(`local store ${storeKind(url)}`, () => {
    it('dedup claims expire by the injected clock', async () => {
      let now = 1_000_000;
      const state = await openState(url, { now: () => now });
      try {
        const key = unique('evt');
        expect(await state.dedup.claim(key, 1_000)).toBe(true);
        now += 999;
        expect(await state.dedup.claim(key, 1_000)).toBe(false);
        now += 2;
        expect(await state.dedup.claim(key, 1_000)).toBe(true);
        expect(await state.dedup.claim(key, 1_000)).toBe(false);
      } finally {
        await state.close();
      }
    });

    it('forgets a thread queue once it drains', async () => {
      const state = await openState(url);
      try {
        const locks = state.locks as LocalThreadLocks;
        const gate = deferred();
        const jobs = [1, 2, 3].map((n) =>
          state.locks.run('t', async () => (await gate.promise, n)),
        );
        expect(locks.activeThreads).toBe(1);
        gate.resolve();
        expect(await Promise.all(jobs)).toEqual([1, 2, 3]);
        await new Promise((resolve) => setImmediate(resolve)); // after pending promise callbacks
        expect(locks.activeThreads).toBe(0);
      } finally {
        await state.close();
      }
    });

    it('passes the turn on after maxLockLifetimeMs and aborts the hung job', async () => {
      const state = await openState(url, { lockTtlMs: 20, maxLockLifetimeMs: 40 });
      try {
        const aborted = deferred<unknown>();
        const hung = state.locks.run('t', (signal) => {
          signal.addEventListener('abort', () => aborted.resolve(signal.reason));
          return new Promise<never>(() => {});
        });
        void hung;
        const next = state.locks.run('t', async () => 'next ran');
        await expect(within(next, 5_000, 'the next job')).resolves.toBe('next ran');
        const reason = await aborted.promise;
        expect(reason).toBeInstanceOf(LockLostError);
        expect((reason as LockLostError).reason).toBe('max lifetime');
      } finally {
        await state.close();
      }
    });

    it('closes once, however often it is asked to', async () => {
      const state = await openState(url);
      const first = state.close();
      await expect(Promise.all([first, state.close()])).resolves.toBeDefined();
      await expect(state.close()).resolves.toBeUndefined();
      expect(state.close()).toBe(first);
    });

    it('aborts running jobs when closed', async () => {
      const state: State = await openState(url);
      const started = deferred<AbortSignal>();
      const job = state.locks.run('t', (signal) => {
        started.resolve(signal);
        return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      });
      const signal = await started.promise;
      await state.close();
      await job;
      expect(signal.aborted).toBe(true);
      expect((signal.reason as LockLostError).reason).toBe('store closed');
    });
  });
}

describe('a state file written by the earlier store (@keyv/sqlite 4 on sqlite3)', () => {
  // The fixture is that store's table and the rows it wrote through openState, as SQL text
  // (a review can read it; no binary file is committed): the file is built from it here.
  const fixture = new URL('./fixtures/keyv-sqlite-v4.sql', import.meta.url);

  it('reads what it wrote, and writes rows of the same layout beside them', async () => {
    const path = join(dir, 'old-store.sqlite');
    const written = openDatabase(path);
    written.exec(readFileSync(fixture, 'utf8'));
    written.close();
    const state = await openState(`sqlite://${path}`);
    try {
      expect(await state.sessions.get('slack:T1:C1:1700000000.000100')).toEqual({
        sessionUuid: 'sess-1',
        chatbotUuid: 'bot-1',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      expect(await state.bindings.get('slack:T1')).toBe('bot-1');
      expect(await state.bindings.get('discord:G1:C9')).toBe('bot-2');
      expect((await state.sources.list('bot-1')).map((source) => source.title)).toEqual([
        'Handbook',
      ]);
      await state.bindings.set('slack:T2', 'bot-3');
    } finally {
      await state.close();
    }
    const db = openDatabase(path, { readOnly: true });
    try {
      // The earlier store's rollback journal gave way to the write-ahead log, kept in the file.
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      const rows = db.prepare('SELECT key, value FROM keyv ORDER BY key').all();
      expect(rows).toContainEqual({
        key: 'chatbridge.bindings:slack:T2',
        value: '{"value":"bot-3"}',
      });
      expect(rows).toContainEqual({
        key: 'chatbridge.bindings:slack:T1',
        value: '{"value":"bot-1"}',
      });
    } finally {
      db.close();
    }
  });
});

describe('openState options and URLs', () => {
  it('names the URL rule, with the password masked', async () => {
    await expect(openState('postgres://u:hunter2@db/x')).rejects.toThrow(
      /must start with memory:\/\/, sqlite:\/\/ or redis:\/\//,
    );
    await expect(openState('postgres://u:hunter2@db/x')).rejects.not.toThrow(/hunter2/);
  });

  it('names a bad option', async () => {
    await expect(openState('memory://', { maxConcurrent: 0 })).rejects.toThrow(/maxConcurrent/);
    await expect(openState('memory://', { lockTtlMs: 1.5 })).rejects.toThrow(/lockTtlMs/);
    // A renewal period must be a whole number of ms, shorter than the leases it renews.
    for (const leaseRenewMs of [0, 2.5, Number.NaN, -5]) {
      await expect(openState('memory://', { leaseRenewMs })).rejects.toThrow(
        /state option leaseRenewMs: must be a whole number of at least 1/,
      );
    }
    await expect(
      openState('memory://', { intakeLeaseMs: 1_000, leaseRenewMs: 1_000 }),
    ).rejects.toThrow(
      /leaseRenewMs: must be less than lockTtlMs \(15000\) and intakeLeaseMs \(1000\)/,
    );
    await expect(
      openState('memory://', { lockTtlMs: 900, intakeLeaseMs: 1_000, leaseRenewMs: 950 }),
    ).rejects.toThrow(/leaseRenewMs/);
    const renewing = await openState('memory://', { intakeLeaseMs: 1_000, leaseRenewMs: 300 });
    await renewing.close();
    await expect(
      openState('memory://', { lockTtlMs: 1_000, maxLockLifetimeMs: 500 }),
    ).rejects.toThrow(/maxLockLifetimeMs/);
  });

  it('masks passwords in URLs', () => {
    expect(maskUrl('redis://user:p%40ss@host:6379/0')).toBe('redis://user:***@host:6379/0');
    expect(maskUrl('redis://:secret@host')).toBe('redis://:***@host');
    expect(maskUrl('redis://host:6379')).toBe('redis://host:6379');
  });
});

describe('the sqlite:// state file, used by another connection or damaged', () => {
  it('waits 10 s for another connection’s write lock (node:sqlite waits 0 ms unless told)', async () => {
    const store = await openKeyvStore(`sqlite://${join(dir, 'busy.sqlite')}`);
    try {
      expect(store.sqlite!.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: 10_000 });
    } finally {
      await store.close();
    }
  });

  it('writes through a write-ahead log, each commit synced (synchronous FULL)', async () => {
    const store = await openKeyvStore(`sqlite://${join(dir, 'wal.sqlite')}`);
    try {
      expect(store.sqlite!.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(store.sqlite!.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 2 });
    } finally {
      await store.close();
    }
  });

  /** How many of this process's file descriptors are open on path (Linux). */
  const openOn = (path: string) =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === path;
      } catch {
        return false; // closed while listed (the listing's own descriptor)
      }
    }).length;

  it.runIf(existsSync('/proc/self/fd'))(
    'refuses a file that is no database, naming it, and leaves it closed',
    async () => {
      const path = join(dir, 'garbage.sqlite');
      writeFileSync(path, 'this is no SQLite database. '.repeat(40));
      await expect(openState(`sqlite://${path}`)).rejects.toThrow(
        `store URL "sqlite://${path}": cannot open: file is not a database`,
      );
      expect(openOn(path)).toBe(0);
    },
  );
});
