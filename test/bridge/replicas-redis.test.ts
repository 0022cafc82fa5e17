// Two replicas of the engine sharing ONE Redis state (a real redis-server on loopback): the
// messages of one thread, handed to them alternately, are answered one at a time, each once,
// in the order they were submitted, all in the one session of the thread.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConversation } from '../../src/bridge/engine.js';
import { threadKey, type Conversation } from '../../src/bridge/types.js';
import { openState, type State } from '../../src/state/index.js';
import type { RedisClient } from '../../src/state/keyv.js';
import { lockKeys } from '../../src/state/lock-scripts.js';
import { hasRedisServer, startRedisServer, type RedisServer } from '../state/redis-server.js';
import { message } from './helpers/engine-setup.js';
import { FakeClient, ScriptedStream } from './helpers/fake-client.js';
import { FakeClock } from './helpers/fake-clock.js';
import { RecordingTarget } from './helpers/recording-target.js';

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

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Polls Redis (no fixed sleep) until check passes. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe.runIf(hasRedisServer)('two engines sharing one Redis state', () => {
  it('answers 20 messages of one thread, handed alternately, once each, in order', async () => {
    const prefix = `replicas-${process.pid}-${Date.now()}`;
    const replicas = [await openState(server!.url, { keyPrefix: prefix })];
    replicas.push(await openState(server!.url, { keyPrefix: prefix }));
    states.push(...replicas);
    await replicas[0]!.bindings.set('slack:T1', 'bot-1');

    // The service both replicas talk to. Each answer streams over several event-loop turns,
    // so two answers running at once would interleave and be seen.
    const service = new FakeClient();
    let active = 0;
    let maxActive = 0;
    let release!: () => void;
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    service.onStream = ({ query }) => {
      const stream = new ScriptedStream();
      active += 1;
      maxActive = Math.max(maxActive, active);
      void (async () => {
        if (query === 'q0') {
          started();
          await firstHeld;
        }
        for (const piece of ['Answer ', 'to ', query]) {
          stream.push(piece);
          await turn();
        }
        active -= 1;
        stream.end();
      })();
      return stream;
    };
    const clock = new FakeClock();
    const engines: Conversation[] = replicas.map((state) =>
      createConversation({
        client: service,
        state,
        now: clock.now,
        setTimer: clock.setTimer,
        clearTimer: clock.clearTimer,
      }),
    );

    const tickets = lockKeys(prefix, threadKey(message('any'))).ticket;
    const ticketsTaken = async () => Number((await raw!.get(tickets)) ?? 0);
    const targets: RecordingTarget[] = [];
    const answers: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      const target = new RecordingTarget({ maxChars: 2000, minUpdateMs: 1000 }, clock);
      targets.push(target);
      answers.push(engines[i % 2]!.handle(message(`q${i}`, { messageId: `m${i}` }), target));
      // Submission order across replicas is the order their tickets reach Redis.
      await until(`ticket ${i + 1}`, async () => (await ticketsTaken()) === i + 1);
    }
    // Everything is queued behind the first answer; only it has started.
    await firstStarted;
    expect(service.streamCalls.map((c) => c.query)).toEqual(['q0']);
    release();
    await Promise.all(answers);

    expect(maxActive).toBe(1);
    expect(service.streamCalls.map((c) => c.query)).toEqual(targets.map((_, i) => `q${i}`));
    expect(new Set(service.streamCalls.map((c) => c.sessionUuid)).size).toBe(1);
    expect(service.sessions.size).toBe(1);
    targets.forEach((target, i) => {
      expect(target.messages).toHaveLength(1);
      expect(target.messages[0]!.finishCount).toBe(1);
      expect(target.finalTexts).toEqual([`Answer to q${i}`]);
    });
    // Answers did not overlap: each one's calls all come before the next one's.
    const span = (t: RecordingTarget) => {
      const seqs = t.calls.filter((c) => c.kind !== 'working').map((c) => c.seq!);
      return [Math.min(...seqs), Math.max(...seqs)] as const;
    };
    for (let i = 1; i < targets.length; i++) {
      expect(span(targets[i - 1]!)[1]).toBeLessThan(span(targets[i]!)[0]);
    }
  });
});
