// Two `chatbridge start` processes on one real Redis, Slack in HTTP mode against the fake Web
// API, the local service (in this process) answering. Nothing a user sends is lost:
// - a replica killed (SIGKILL) mid-answer: a live one takes the kept event over after the
//   lease, stops the stream left open with a notice, reads the answer the service stored (the
//   question is not sent twice) and gives exactly one complete answer;
// - Redis stopped while 20 questions arrive: none is acknowledged until it is kept (HTTP 500),
//   Slack's retries (its schedule scaled down 60×) land once Redis is back, and every question
//   is answered exactly once, with no stream left open. The 20 are asked in 20 channels: in one,
//   Slack's one message a second per channel paced the answers over 14 s of the test's time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createClient } from 'redis';
import type { RedisClient } from '../../src/state/keyv.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../src/local-service/index.js';
import { fromArray } from '../../src/local-service/pieces.js';
import type { ServiceClient } from '../../src/service/api.js';
import { openState, type State } from '../../src/state/index.js';
import { startScriptedService, type ScriptedService } from '../scripted-service.js';
import { startCli, type CliProcess } from '../cli-process.js';
import {
  freePort,
  hasRedisServer,
  startRedisServer,
  type RedisServer,
} from '../state/redis-server.js';
import { BOT_TOKEN, FakeSlack, TEAM } from './fake-slack.js';
import { ALICE, SIGNING_SECRET, sign } from './harness.js';

// Short, so a takeover comes soon; but a live replica must renew within it even on a starved
// machine: at 1 s (renewed every third), a load average of 10 on 2 cores cost leases mid-answer
// (taken over, answered twice) in 2 runs of 3. What counts is how late a renewal may come, the
// lease less the renewal period: 3.4 s here, as much as the 5 s lease renewed every third had.
// Sweeps (a quarter lease apart, the sign of life a hand-off counts on) may be 2.7 s late.
const LEASE_MS = 3_600;
const LEASE_RENEW_MS = 200;
/** The first try, then Slack's retries (at once, after 1 and 5 minutes), 60× faster. */
const RETRY_DELAYS_MS = [0, 0, 1_000, 5_000];
const INTERRUPTED = 'This answer was interrupted';

const dir = mkdtempSync(join(tmpdir(), 'chatbridge-replicas-'));
let redis: RedisServer;
let redisPort: number;
let slack: FakeSlack;
let service: LocalService;
let scripted: ScriptedService | undefined;
let client: ServiceClient;
let chatbot: string;
let state: State;
let raw: RedisClient;
const replicas: Replica[] = [];

/** The answer a question gets; the one marked HOLD waits after its first words until released. */
const HOLD = 'held question';
let held: { reached: () => void; release: Promise<void> } | undefined;
const answerOf = (query: string) => ['Answer ', 'to ', `${query}.`];

async function* answer(query: string): AsyncIterable<string> {
  const [first, ...rest] = answerOf(query);
  yield first!;
  if (query === HOLD && held) {
    held.reached();
    await held.release;
  }
  yield* fromArray(rest);
}

interface Replica extends CliProcess {
  port: number;
}

/** Starts a replica; again on another port if the free one was taken before it listened. */
async function startReplica(): Promise<Replica> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startReplicaOn(await freePort());
    } catch (error) {
      if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startReplicaOn(port: number): Promise<Replica> {
  const started = await startCli(['start'], {
    cwd: dir,
    env: {
      CHATBRIDGE_SERVICE_URL: service.url,
      CHATBRIDGE_API_KEY: 'test-key',
      CHATBRIDGE_CHATBOT: chatbot,
      CHATBRIDGE_STORE: redis.url,
      CHATBRIDGE_DATA_DIR: join(dir, 'data'),
      CHATBRIDGE_LEASE_MS: String(LEASE_MS),
      CHATBRIDGE_LEASE_RENEW_MS: String(LEASE_RENEW_MS),
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      LOG_LEVEL: 'info',
    },
    startedWhen: 'chatbridge is running',
  });
  const replica: Replica = { ...started, port };
  replicas.push(replica);
  return replica;
}

function kill(replica: Replica): Promise<void> {
  return new Promise((resolve) => {
    replica.child.once('exit', () => resolve());
    replica.child.kill('SIGKILL');
  });
}

let seq = 0;
const nextTs = () => `1700000${String(++seq).padStart(3, '0')}.000100`;
/** The channel each thread (by its ts) was asked in: C1 unless the test says otherwise. */
const channelOf = new Map<string, string>();
const channel = (thread: string) => channelOf.get(thread) ?? 'C1';
const CHANNELS = Array.from({ length: 20 }, (_, i) => `C${i + 1}`);

/**
 * Delivers a mention as Slack does: a request that is not answered 200 within 3 s is tried
 * again on Slack's schedule. Resolves with the statuses of every try.
 */
async function deliver(
  replica: () => Replica,
  text: string,
  ts: string,
  onRefused?: (tries: number) => void,
): Promise<number[]> {
  const body = JSON.stringify({
    token: 'legacy',
    team_id: TEAM,
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `Ev${ts}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_mention',
      user: ALICE,
      channel: channel(ts),
      text: `<@UBOT> ${text}`,
      ts,
    },
  });
  const statuses: number[] = [];
  for (const [attempt, delay] of RETRY_DELAYS_MS.entries()) {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const retry: Record<string, string> =
      attempt === 0
        ? {}
        : { 'x-slack-retry-num': String(attempt), 'x-slack-retry-reason': 'http_error' };
    const status = await fetch(`http://127.0.0.1:${replica().port}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sign(body), ...retry },
      body,
      signal: AbortSignal.timeout(3_000),
    }).then(
      (response) => response.status,
      () => 0,
    );
    statuses.push(status);
    if (status === 200) return statuses;
    onRefused?.(statuses.length);
  }
  return statuses;
}

/** The bot's messages in a thread, with what each shows. */
function botMessages(thread: string) {
  return slack.workspace
    .thread(channel(thread), thread)
    .filter((m) => !m.user)
    .map((m) => ({
      text: slack.workspace.visibleText(m.ts),
      streaming: m.streaming,
      ended: m.ended,
    }));
}

/** Polls (no fixed sleep) until check passes. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function storedQueries(thread: string): Promise<string[]> {
  const ref = await state.sessions.get(`slack:${TEAM}:${channel(thread)}:${thread}`);
  if (!ref?.sessionUuid) return [];
  return (await client.listMessages(ref.sessionUuid)).map((m) => m.query);
}

/** Resolves once every thread has its complete answer (a final message with the whole text). */
function answered(threads: Map<string, string>): Promise<void> {
  const done = () =>
    [...threads].every(([thread, question]) =>
      botMessages(thread).some((m) => !m.streaming && m.text.includes(answerOf(question).join(''))),
    );
  return done() ? Promise.resolve() : slack.waitForCall(() => done()).then(() => undefined);
}

beforeAll(async () => {
  if (!hasRedisServer) return;
  redisPort = await freePort();
  redis = await startRedisServer({ port: redisPort, dir });
  slack = await new FakeSlack().start();
  slack.workspace.users.set(ALICE, {
    id: ALICE,
    name: 'alice',
    team_id: TEAM,
    profile: { display_name: 'Alice' },
  });
  for (const id of CHANNELS) slack.workspace.channels.set(id, id === 'C1' ? 'general' : id);
  scripted = await startScriptedService(answer);
  ({ service, client, chatbot } = scripted);
  state = await openState(redis.url);
  raw = createClient({ url: redis.url }) as unknown as RedisClient; // see RedisClient
  // Redis is stopped on purpose below: this client reconnects quietly.
  raw.on('error', () => {});
  await raw.connect();
  // At once: each start is mostly loading modules, CPU the two can share.
  await Promise.all([startReplica(), startReplica()]);
}, 90_000);

afterAll(async () => {
  await Promise.all(
    replicas.map((r) =>
      r.child.exitCode === null && r.child.signalCode === null ? kill(r) : undefined,
    ),
  );
  await state?.close();
  await raw?.close();
  await scripted?.close();
  await slack?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(hasRedisServer)('two replicas on one Redis: nothing a user sends is lost', () => {
  it('a replica killed mid-answer: a live one closes its stream and answers once', async () => {
    let reached!: () => void;
    let release!: () => void;
    const atHold = new Promise<void>((resolve) => (reached = resolve));
    held = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
    const [first] = replicas;
    const thread = nextTs();
    expect(await deliver(() => first!, HOLD, thread)).toEqual([200]);
    // The first words are on screen in an open stream when the replica dies.
    await atHold;
    const started = await slack.waitFor('chat.startStream', (args) => args.thread_ts === thread);
    // ... and the replica has recorded it with the kept event (the note any replica reads).
    const ts = (started.reply as unknown as { ts: string }).ts;
    await until('the opened stream recorded', async () =>
      Object.values(await raw.hGetAll('chatbridge:intake:slack:notes')).some((note) =>
        note.includes(ts),
      ),
    );
    await kill(first!);
    replicas.splice(replicas.indexOf(first!), 1);
    // A replica again in its place for what follows, started while the lease runs out (its
    // start is mostly loading modules; which live replica takes the event over does not matter).
    const replacement = startReplica();
    release();
    await answered(new Map([[thread, HOLD]]));

    const messages = botMessages(thread);
    expect(messages.filter((m) => m.text.includes(answerOf(HOLD).join('')))).toHaveLength(1);
    const orphan = messages.find((m) => m.text.includes(INTERRUPTED));
    expect(orphan).toMatchObject({ streaming: false, ended: 'stop' });
    expect(messages.every((m) => !m.streaming)).toBe(true);
    // The question went to the service once: the takeover read the stored answer.
    expect(await storedQueries(thread)).toEqual([HOLD]);
    await replacement;
  }, 90_000);

  it('Redis stopped while 20 questions arrive: each is answered once when it is back', async () => {
    held = undefined;
    await redis.stop('SIGTERM');
    const threads = new Map<string, string>();
    const refused: Promise<void>[] = [];
    const deliveries: Promise<number[]>[] = [];
    for (let i = 0; i < 20; i++) {
      const thread = nextTs();
      channelOf.set(thread, CHANNELS[i]!);
      const question = `question ${i}`;
      threads.set(thread, question);
      let once!: () => void;
      refused.push(new Promise<void>((resolve) => (once = resolve)));
      const replica = replicas[i % 2]!;
      deliveries.push(
        deliver(
          () => replica,
          question,
          thread,
          (tries) => tries === 1 && once(),
        ),
      );
    }
    // Every question was refused (not acknowledged) while Redis was down.
    await Promise.all(refused);
    redis = await startRedisServer({ port: redisPort, dir });
    const statuses = await Promise.all(deliveries);
    for (const tries of statuses) {
      expect(tries[0]).toBe(500);
      expect(tries.at(-1)).toBe(200);
    }
    await answered(threads);
    for (const [thread, question] of threads) {
      const messages = botMessages(thread);
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatchObject({ streaming: false });
      expect(messages[0]!.text).toContain(answerOf(question).join(''));
      expect(await storedQueries(thread)).toEqual([question]);
    }
    // No stream left open anywhere.
    expect([...slack.workspace.messages.values()].filter((m) => m.streaming)).toEqual([]);
  }, 60_000);
});

describe('a replica that does not start says why', () => {
  it('one that exits: its output and exit code are in the failure', async () => {
    await expect(
      startCli(['no-such-command'], { cwd: dir, env: {}, startedWhen: 'chatbridge is running' }),
    ).rejects.toThrow(/exited \(2\)[^]*unknown command "no-such-command"/);
  });

  it('one that is not running in time: how long it ran, its CPU and the load are told', async () => {
    // A store that accepts the connection and never answers: the start waits on it.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      await expect(
        startCli(['start'], {
          cwd: dir,
          env: {
            CHATBRIDGE_STORE: `redis://127.0.0.1:${port}`,
            SLACK_BOT_TOKEN: BOT_TOKEN,
            SLACK_SIGNING_SECRET: SIGNING_SECRET,
          },
          startedWhen: 'chatbridge is running',
          timeoutMs: 500,
        }),
      ).rejects.toThrow(
        /did not say "chatbridge is running" after \d+\.\d s, (having used \d+\.\d+ s of CPU, )?load average [\d.]+ on \d+ cores; its output:\n/,
      );
    } finally {
      silent.close();
    }
  });
});
