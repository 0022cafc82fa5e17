// redis:// store against a real redis-server started here: the shared contract, plus what
// only several replicas sharing one Redis can show.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockLostError, openState, type State, type StateOptions } from '../../src/state/index.js';
import { lockKeys } from '../../src/state/lock-scripts.js';
import type { RedisClient } from '../../src/state/keyv.js';
import { built } from '../run-cli.js';
import { deferred, stateContract, unique, within } from './contract.js';
import { freePort, hasRedisServer, startRedisServer, type RedisServer } from './redis-server.js';

let server: RedisServer | undefined;
let raw: RedisClient | undefined;

beforeAll(async () => {
  if (!hasRedisServer) return;
  server = await startRedisServer();
  raw = createClient({ url: server.url }) as unknown as RedisClient; // see RedisClient
  await raw.connect();
});

afterAll(async () => {
  await raw?.close();
  await server?.stop();
});

const url = () => server!.url;
const redis = () => raw!;

/** Polls Redis (not a fixed sleep) until check passes. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const ticketsTaken = async (prefix: string, thread: string) =>
  Number((await redis().get(lockKeys(prefix, thread).ticket)) ?? 0);

/** Runs test/state/fixtures/lock-client.ts in a child process; resolves once `line` is printed. */
function lockClient(args: string[], line: string): { child: ChildProcess; reached: Promise<void> } {
  const script = built('test/state/fixtures/lock-client.ts');
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reached = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.split('\n').includes(line)) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`lock client exited (${code}) before "${line}"`)),
    );
  });
  reached.catch(() => undefined); // a test that kills the child early need not await it
  return { child, reached };
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe.skipIf(!hasRedisServer)('redis store', () => {
  stateContract('redis', {
    open: (options) => openState(url(), { keyPrefix: 'contract', ...options }),
    persistent: true,
  });

  const opened: State[] = [];
  const open = async (options: StateOptions = {}) => {
    const state = await openState(url(), options);
    opened.push(state);
    return state;
  };
  afterAll(async () => {
    await Promise.all(opened.map((state) => state.close()));
  });

  it('dedup: two replicas racing 50 claims on one key: exactly one wins', async () => {
    const [a, b] = [await open(), await open()];
    const key = unique('evt');
    const claims = Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).dedup.claim(key, 60_000));
    expect((await Promise.all(claims)).filter(Boolean)).toHaveLength(1);
  });

  it('dedup: a claim expires after its TTL (Redis time)', async () => {
    const state = await open({ keyPrefix: 'ttl' });
    const key = unique('evt');
    expect(await state.dedup.claim(key, 150)).toBe(true);
    expect(await state.dedup.claim(key, 150)).toBe(false);
    expect(await redis().pTTL(`ttl:dedup:${key}`)).toBeGreaterThan(0);
    await until(
      'the claim to expire',
      async () => (await redis().exists(`ttl:dedup:${key}`)) === 0,
    );
    expect(await state.dedup.claim(key, 150)).toBe(true);
  });

  it('reply links: a link one replica writes, another reads', async () => {
    const prefix = unique('links');
    const [a, b] = [await open({ keyPrefix: prefix }), await open({ keyPrefix: prefix })];
    const message = unique('discord:answer');
    const thread = { platform: 'discord', workspace: 'G', channel: 'C', thread: 'M' };
    expect(await b.replyLinks.get(message)).toBeUndefined();
    await a.replyLinks.set(message, thread);
    expect(await b.replyLinks.get(message)).toEqual(thread);
  });

  it('reply links: Redis drops the row itself once the TTL passed (Redis time)', async () => {
    const prefix = unique('linkttl');
    const state = await open({ keyPrefix: prefix, replyLinkTtlMs: 150 });
    const message = unique('discord:answer');
    await state.replyLinks.set(message, {
      platform: 'discord',
      workspace: 'G',
      channel: 'C',
      thread: 'M',
    });
    const rows = () => redis().keys(`${prefix}.reply-links*${message}`);
    const [row] = await rows();
    expect(row).toBeDefined();
    expect(await redis().pTTL(row!)).toBeGreaterThan(0);
    // A real-time expiry: polled with a bound, not slept on.
    await until('the link row to expire', async () => (await rows()).length === 0);
    expect(await state.replyLinks.get(message)).toBeUndefined();
  });

  it('locks: two replicas, 20 jobs on one thread submitted alternately: in order, never overlapping', async () => {
    const prefix = unique('fifo');
    const [a, b] = [await open({ keyPrefix: prefix }), await open({ keyPrefix: prefix })];
    const thread = unique('slack:T:C:ts');
    const started: number[] = [];
    let active = 0;
    let maxActive = 0;
    const jobs: Promise<void>[] = [];
    for (let i = 0; i < 20; i += 1) {
      jobs.push(
        (i % 2 ? b : a).locks.run(thread, async () => {
          active += 1;
          maxActive = Math.max(maxActive, active);
          started.push(i);
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
          active -= 1;
        }),
      );
      // Submission order across replicas is the order tickets reach Redis: wait for each.
      await until(`ticket ${i + 1}`, async () => (await ticketsTaken(prefix, thread)) >= i + 1);
    }
    await Promise.all(jobs);
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(maxActive).toBe(1);
  });

  it('locks: a lost lease aborts the job and the thread moves on', async () => {
    const prefix = unique('lost');
    const state = await open({ keyPrefix: prefix, lockTtlMs: 300 });
    const thread = unique('thread');
    const running = deferred();
    const aborted = deferred<unknown>();
    const holder = state.locks.run(thread, async (signal) => {
      running.resolve();
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => (aborted.resolve(signal.reason), resolve())),
      );
    });
    await running.promise;
    await redis().del(lockKeys(prefix, thread).lease); // as if it expired during a stall
    const reason = await within(aborted.promise, 5_000, 'the signal to abort');
    expect(reason).toBeInstanceOf(LockLostError);
    expect((reason as LockLostError).reason).toBe('lease lost');
    await holder;
    await expect(
      within(
        state.locks.run(thread, async () => 'next'),
        5_000,
        'next',
      ),
    ).resolves.toBe('next');
  });

  it('locks: after the maximum lifetime the lock is released and the job aborted', async () => {
    // The lease is renewed past its TTL until the lifetime runs out: a TTL long enough that a
    // busy machine's late renewal does not lose it first (100 ms did, on CI's 2 loaded cores).
    // Twice the TTL: lived past it only by renewals (a lost one aborts as 'lease lost').
    const state = await open({
      keyPrefix: unique('life'),
      lockTtlMs: 500,
      maxLockLifetimeMs: 1_000,
    });
    const thread = unique('thread');
    const aborted = deferred<unknown>();
    void state.locks.run(thread, (signal) => {
      signal.addEventListener('abort', () => aborted.resolve(signal.reason));
      return new Promise<never>(() => {});
    });
    const next = state.locks.run(thread, async () => 'next');
    await expect(within(next, 5_000, 'next job')).resolves.toBe('next');
    expect(((await aborted.promise) as LockLostError).reason).toBe('max lifetime');
  });

  it('locks: a crashed holder (killed, lease not renewed) lets the next proceed after the TTL', async () => {
    const prefix = unique('crash');
    const thread = unique('thread');
    const ttl = 400;
    const holder = lockClient([url(), prefix, thread, String(ttl), 'hold'], 'holding');
    try {
      await within(holder.reached, 15_000, 'the child to hold the lock');
      const state = await open({ keyPrefix: prefix, lockTtlMs: ttl });
      let ranAt = 0;
      const next = state.locks.run(thread, async () => void (ranAt = Date.now()));
      await until('the waiter ticket', async () => (await ticketsTaken(prefix, thread)) === 2);
      expect(ranAt).toBe(0);
      await kill(holder.child);
      const killedAt = Date.now();
      await within(next, 10_000, 'the job after the crashed holder');
      expect(ranAt).toBeGreaterThanOrEqual(killedAt);
      expect(ranAt - killedAt).toBeLessThan(ttl + 2_000);
    } finally {
      await kill(holder.child);
    }
  });

  it('locks: a crashed waiter is skipped once its heartbeat lapses', async () => {
    const prefix = unique('waiter');
    const thread = unique('thread');
    const ttl = 300;
    const state = await open({ keyPrefix: prefix, lockTtlMs: ttl });
    const release = deferred();
    const first = state.locks.run(thread, () => release.promise);
    await until('the first ticket', async () => (await ticketsTaken(prefix, thread)) === 1);
    const waiter = lockClient([url(), prefix, thread, String(ttl), 'wait'], 'ran');
    try {
      await until('the child ticket', async () => (await ticketsTaken(prefix, thread)) === 2);
      const third = state.locks.run(thread, async () => 'third');
      await until('the third ticket', async () => (await ticketsTaken(prefix, thread)) === 3);
      await kill(waiter.child);
      release.resolve();
      await first;
      await expect(within(third, 10_000, 'the job behind the dead waiter')).resolves.toBe('third');
    } finally {
      await kill(waiter.child);
    }
  });

  it('fails fast with a clear, password-free error when Redis is unreachable', async () => {
    const port = await freePort(); // nothing listens there
    const started = Date.now();
    const failure = openState(`redis://user:hunter2@127.0.0.1:${port}`, {
      connectTimeoutMs: 2_000,
    });
    await expect(failure).rejects.toThrow(/cannot connect to Redis/);
    await expect(failure).rejects.toThrow(/redis:\/\/user:\*\*\*@127\.0\.0\.1/);
    await expect(failure).rejects.not.toThrow(/hunter2/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fails within connectTimeoutMs when Redis accepts but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => void sockets.add(socket)); // never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const started = Date.now();
      await expect(
        openState(`redis://:hunter2@127.0.0.1:${port}`, { connectTimeoutMs: 300 }),
      ).rejects.toThrow(/cannot connect to Redis.*300 ms/);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('fails within connectTimeoutMs when Redis takes one connection and refuses the next', async () => {
    // At its client limit after one: the locks' subscriber is refused. Its copy of the client
    // reconnects forever, so without a bound openState (and `chatbridge start`) never returned.
    const full = await startRedisServer({ maxClients: 1 });
    try {
      const opening = openState(full.url, { connectTimeoutMs: 500 });
      await expect(within(opening, 10_000, 'openState')).rejects.toThrow(
        /lock subscriber's connection to Redis: no answer within 500 ms/,
      );
    } finally {
      await full.stop();
    }
  });
});
