// Three `chatbridge start` processes with one bot token on one real Redis, each holding one of
// three gateway shards of the fake Discord; the local service (in this process) answers. A
// message is seen only by the process holding its server's shard, but any process answers it
// after that one is gone (REST is not bound to shards):
// - SIGTERM mid-answer with a short drain: the stopping process ends its message with the
//   interrupted notice and leaves the event to a live one, which delivers the complete answer;
// - SIGKILL mid-answer: after the lease a live process edits the orphaned message to end with
//   the notice and delivers the answer the service stored.
// Either way: exactly one complete answer, the question sent to the service once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { hasRedisServer, startRedisServer, type RedisServer } from '../state/redis-server.js';
import { freePort } from '../state/redis-server.js';
import { FakeDiscord, TOKEN } from './fake/discord.js';
import type { FakeChannel, FakeMessage } from './fake/payloads.js';
import { alice } from './helpers.js';

// Long enough that a live holder on a busy machine (CI: two test workers and the type check on
// two cores) renews in time: at 1 s (renewed every third) one was taken over mid-answer and the
// test timed out. What counts is how late a renewal may come, the lease less the renewal period:
// 3.4 s here, as much as the 5 s lease renewed every third had. Sweeps (a quarter lease apart,
// the sign of life a hand-off counts on) may be 2.7 s late.
const LEASE_MS = 3_600;
const LEASE_RENEW_MS = 200;
const SHARDS = 3;
const INTERRUPTED = 'This answer was interrupted';
const HOLD = 'held question';
const answerOf = (query: string) => ['Answer ', 'to ', `${query}.`];

const dir = mkdtempSync(join(tmpdir(), 'chatbridge-discord-replicas-'));
let redis: RedisServer;
let fake: FakeDiscord;
let service: LocalService;
let scripted: ScriptedService | undefined;
let client: ServiceClient;
let chatbot: string;
let state: State;
let raw: RedisClient;
/** One server per shard: a message there reaches only the process holding that shard. */
const servers: { guildId: string; textChannel: FakeChannel }[] = [];
const replicas: Replica[] = [];

/** The held question's answer waits after its first words until released. */
let held: { reached: () => void; release: Promise<void> } | undefined;

async function* answer(query: string): AsyncIterable<string> {
  const [first, ...rest] = answerOf(query);
  yield first!;
  if (query === HOLD && held) {
    held.reached();
    await held.release;
  }
  yield* fromArray(rest);
}

/** Holds the next HOLD answer after its first words; release() lets it go on. */
function holdNext() {
  let reached!: () => void;
  let release!: () => void;
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  held = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
  return { atHold, release };
}

type Replica = CliProcess;

/** Starts a replica; again on another port if the free one was taken before it listened. */
async function startReplica(shard: number): Promise<Replica> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startReplicaOn(shard, await freePort());
    } catch (error) {
      if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startReplicaOn(shard: number, port: number): Promise<Replica> {
  const replica = await startCli(['start'], {
    cwd: dir,
    env: {
      CHATBRIDGE_SERVICE_URL: service.url,
      CHATBRIDGE_API_KEY: 'test-key',
      CHATBRIDGE_CHATBOT: chatbot,
      CHATBRIDGE_STORE: redis.url,
      CHATBRIDGE_DATA_DIR: join(dir, 'data'),
      CHATBRIDGE_LEASE_MS: String(LEASE_MS),
      CHATBRIDGE_LEASE_RENEW_MS: String(LEASE_RENEW_MS),
      // Cut answers soon after SIGTERM: the hand-off, not the drain, is under test.
      CHATBRIDGE_DRAIN_MS: '200',
      DISCORD_TOKEN: TOKEN,
      DISCORD_API_URL: fake.apiUrl,
      DISCORD_SHARD_COUNT: String(SHARDS),
      DISCORD_SHARDS: String(shard),
      PORT: String(port),
      LOG_LEVEL: 'info',
    },
    startedWhen: 'chatbridge is running',
  });
  replicas[shard] = replica;
  return replica;
}

/** Polls (no fixed sleep) until check passes. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A mention of the bot in a server's text channel: answered in a thread on the message. */
function ask(server: (typeof servers)[number], text: string): FakeMessage {
  return fake.userMessage(server.textChannel.id, alice, `<@${fake.bot.id}> ${text}`, {
    mentions: [fake.bot],
  });
}

/** The first words shown in the thread, once recorded with the kept event (any process reads it). */
async function firstWordsRecorded(thread: string): Promise<FakeMessage> {
  const shown = await fake.waitFor<FakeMessage>(
    'message',
    (m) => m.channel_id === thread && m.author.id === fake.bot.id,
    fake.botMessages(thread),
  );
  await until('the opened message recorded', async () =>
    Object.values(await raw.hGetAll('chatbridge:intake:discord:notes')).some((note) =>
      note.includes(`${thread}/${shown.id}`),
    ),
  );
  return shown;
}

/** Resolves with the bot's message in the thread that shows the complete answer. */
function completeAnswer(thread: string, question: string): Promise<FakeMessage> {
  const full = answerOf(question).join('');
  const matches = (m: FakeMessage) =>
    m.channel_id === thread && m.author.id === fake.bot.id && m.content.includes(full);
  const past = fake.botMessages(thread);
  return Promise.race([
    fake.waitFor<FakeMessage>('message', matches, past),
    fake.waitFor<FakeMessage>('edit', matches, past),
  ]);
}

async function storedQueries(server: (typeof servers)[number], thread: string) {
  const ref = await state.sessions.get(
    `discord:${server.guildId}:${server.textChannel.id}:${thread}`,
  );
  if (!ref?.sessionUuid) return [];
  return (await client.listMessages(ref.sessionUuid)).map((m) => m.query);
}

const count = (text: string, part: string) => text.split(part).length - 1;

beforeAll(async () => {
  if (!hasRedisServer) return;
  redis = await startRedisServer();
  fake = await new FakeDiscord().start();
  for (let shard = 0; shard < SHARDS; shard++) servers.push(fake.addGuild(shard, SHARDS));
  scripted = await startScriptedService(answer);
  ({ service, client, chatbot } = scripted);
  state = await openState(redis.url);
  raw = createClient({ url: redis.url }) as unknown as RedisClient; // see RedisClient
  await raw.connect();
  await Promise.all([0, 1, 2].map((shard) => startReplica(shard)));
}, 90_000);

afterAll(async () => {
  for (const replica of replicas) {
    if (!replica) continue;
    if (replica.child.exitCode === null && replica.child.signalCode === null) {
      replica.child.kill('SIGKILL');
      await replica.exited;
    }
  }
  await state?.close();
  await raw?.close();
  await scripted?.close();
  // Checks every request the processes made against Discord's API description.
  await fake?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(hasRedisServer)('discord: processes on one Redis take over each other', () => {
  it('SIGTERM mid-answer: the stopping process hands the event to a live one', async () => {
    // A replica counts as one to hand over to once it has swept the queue (its first sweep is
    // at its start); until then a stopping one rightly says "ask again". On a loaded machine
    // (CI's 2 cores running other child processes) that sweep can lag the started line.
    await until(
      'every replica swept the queue once',
      async () => (await raw.zCard('chatbridge:intake:discord:alive')) >= SHARDS,
      30_000,
    );
    const { atHold, release } = holdNext();
    const [stopping] = replicas;
    const asked = ask(servers[0]!, HOLD);
    await atHold;
    const orphan = await firstWordsRecorded(asked.id);
    stopping!.child.kill('SIGTERM');
    // The stopping process closes its own message: the notice, not "please ask again".
    const closed = await fake.waitFor<FakeMessage>(
      'edit',
      (m) => m.id === orphan.id && m.content.includes(INTERRUPTED),
      [fake.messages.get(orphan.id)!],
    );
    expect(closed.content).toContain(answerOf(HOLD)[0]!.trim());
    expect(closed.content).not.toContain('ask again');
    release();
    const full = await completeAnswer(asked.id, HOLD);
    expect(await stopping!.exited).toBe(0);

    expect(full.id).not.toBe(orphan.id);
    const messages = fake.botMessages(asked.id);
    expect(messages.filter((m) => m.content.includes(answerOf(HOLD).join('')))).toHaveLength(1);
    // Closed once: the live process found nothing left open to close again.
    expect(count(fake.messages.get(orphan.id)!.content, INTERRUPTED)).toBe(1);
    expect(await storedQueries(servers[0]!, asked.id)).toEqual([HOLD]);
  }, 60_000);

  it('SIGKILL mid-answer: a live process closes the orphan and answers once', async () => {
    const { atHold, release } = holdNext();
    const dying = replicas[1]!;
    const asked = ask(servers[1]!, HOLD);
    await atHold;
    const orphan = await firstWordsRecorded(asked.id);
    dying.child.kill('SIGKILL');
    await dying.exited;
    release();
    const full = await completeAnswer(asked.id, HOLD);
    // The orphan was edited, after the lease, to end with the notice (what it showed stays).
    const closed = await fake.waitFor<FakeMessage>(
      'edit',
      (m) => m.id === orphan.id && m.content.includes(INTERRUPTED),
      [fake.messages.get(orphan.id)!],
    );
    expect(closed.content.startsWith(answerOf(HOLD)[0]!.trim())).toBe(true);
    expect(closed.content.trimEnd().endsWith('_')).toBe(true);
    expect(closed.allowedMentions.at(-1)).toEqual({ parse: [] });

    expect(full.id).not.toBe(orphan.id);
    const messages = fake.botMessages(asked.id);
    expect(messages.filter((m) => m.content.includes(answerOf(HOLD).join('')))).toHaveLength(1);
    expect(await storedQueries(servers[1]!, asked.id)).toEqual([HOLD]);
  }, 60_000);
});
