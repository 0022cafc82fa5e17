// End to end: the engine with the real client against the real local service on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConversation } from '../../src/bridge/engine.js';
import type { Conversation, IncomingMessage } from '../../src/bridge/types.js';
import { startLocalService, type LocalService } from '../../src/local-service/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import { createServiceClient } from '../../src/service/index.js';
import { openState, type State } from '../../src/state/index.js';
import { FakeClock } from './helpers/fake-clock.js';
import { RecordingTarget } from './helpers/recording-target.js';
import { sharedConverters } from '../converters.js';

let service: LocalService;
let client: ServiceClient;
let state: State;
let conversation: Conversation;
let botUuid: string;
// Only stamps the recorded calls; the engine runs on the real clock here.
const stamps = new FakeClock();
const target = () => new RecordingTarget({ maxChars: 2000, minUpdateMs: 50 }, stamps);

function ask(text: string, thread = 'e2e'): IncomingMessage {
  return {
    platform: 'console',
    workspace: 'local',
    channel: 'tty',
    thread,
    messageId: `${thread}-${text}`,
    userId: 'u1',
    userName: 'Ada',
    text,
  };
}

beforeAll(async () => {
  service = await startLocalService({ apiKeys: ['e2e-key'], extractionPool: sharedConverters });
  client = createServiceClient({ baseUrl: service.url, apiKey: 'e2e-key', retryBaseMs: 5 });
  state = await openState('memory://');
  const bot = await client.createChatbot({ name: 'E2E bot', show_citations: true });
  botUuid = bot.uuid;
  const source = await client.addQaSource(botUuid, {
    question: 'What is the refund period?',
    answer: 'Refunds are accepted within 30 days of purchase.',
  });
  await state.sources.add({
    uuid: source.uuid,
    chatbotUuid: botUuid,
    title: 'Refund policy',
    type: 'qa',
    link: 'https://shop.example/refunds',
    createdAt: new Date().toISOString(),
  });
  await service.drain();
  await state.bindings.set('console:local', botUuid);
  conversation = createConversation({ client, state });
});

afterAll(async () => {
  await client?.close();
  await state?.close();
  await service?.close();
});

describe('engine against the local service', () => {
  it('answers with the stored text and a linked source', async () => {
    const t = target();
    await conversation.handle(ask('What is the refund period?'), t);
    expect(t.messages).toHaveLength(1);
    const final = t.lastFinal!;
    expect(final.notice).toBeUndefined();
    expect(final.text).toContain('30 days');
    expect(final.text).toMatch(/\[1\]/);
    expect(final.text).not.toMatch(/\[\d+\.\d+\]/);
    expect(final.sources).toEqual([
      expect.objectContaining({ number: 1, link: 'https://shop.example/refunds' }),
    ]);
    expect(await conversation.hasSession(ask('any'))).toBe(true);
  });

  it('replaces a stored session the service does not know and re-sends', async () => {
    await state.sessions.set('console:local:tty:stale', {
      sessionUuid: 'ffffffffffffffffffffffffffffffff',
      chatbotUuid: botUuid,
      createdAt: new Date().toISOString(),
    });
    const t = target();
    await conversation.handle(ask('What is the refund period?', 'stale'), t);
    expect(t.lastFinal!.text).toContain('30 days');
    const ref = await state.sessions.get('console:local:tty:stale');
    expect(ref!.sessionUuid).not.toBe('ffffffffffffffffffffffffffffffff');
  });

  it('keeps the partial text when the connection is cut mid-answer', async () => {
    service.setFaults({ cutAfterPieces: 2 });
    try {
      const t = target();
      await conversation.handle(ask('What is the refund period?', 'cut'), t);
      expect(t.lastFinal!.notice?.kind).toBe('cut_off');
      expect(t.messages.every((m) => m.finishCount === 1)).toBe(true);
    } finally {
      service.setFaults({});
    }
  });

  it('says the service could not be reached when it fails', async () => {
    service.setFaults({ failStatus: 503 });
    try {
      const t = target();
      await conversation.handle(ask('Anyone there?', 'down'), t);
      expect(t.lastFinal).toMatchObject({ text: '', notice: { kind: 'unavailable' } });
    } finally {
      service.setFaults({});
    }
  });

  it("shows the chatbot's rate_limit_message when its limit is hit", async () => {
    const bot = await client.createChatbot({
      name: 'Strict bot',
      rate_limit: [1, 60],
      rate_limit_message: 'One question a minute, please.',
    });
    await state.bindings.set('console:strict', bot.uuid);
    const at = (thread: string) => ({ ...ask('hello', thread), workspace: 'strict' });
    await conversation.handle(at('r1'), target());
    const t = target();
    await conversation.handle(at('r2'), t);
    expect(t.lastFinal!.notice).toEqual({
      kind: 'rate_limited',
      text: 'One question a minute, please.',
    });
  });
});

describe('many threads at once, over the real client', () => {
  it('streams every answer at the same time: none waits for another to finish', async () => {
    // More threads than the client keeps pooled connections for ordinary calls (16).
    const threads = 24;
    let started = 0;
    let releaseAll!: () => void;
    const allStarted = new Promise<void>((resolve) => (releaseAll = resolve));
    // Every answer stops after its first piece until all of them have sent one.
    const busy = await startLocalService({
      apiKeys: ['busy-key'],
      extractionPool: sharedConverters,
      pacer: async (index) => {
        if (index !== 1) return;
        if (++started === threads) releaseAll();
        await allStarted;
      },
    });
    const busyClient = createServiceClient({ baseUrl: busy.url, apiKey: 'busy-key' });
    const busyState = await openState('memory://');
    try {
      const bot = await busyClient.createChatbot({ name: 'Busy bot', rate_limit: [100, 360] });
      await busyClient.addQaSource(bot.uuid, {
        question: 'What is the refund period?',
        answer: 'Refunds are accepted within 30 days of purchase.',
      });
      await busy.drain();
      await busyState.bindings.set('console:local', bot.uuid);
      const busyConversation = createConversation({ client: busyClient, state: busyState });
      const targets = Array.from({ length: threads }, () => target());
      await Promise.all(
        targets.map((t, i) =>
          busyConversation.handle(ask('What is the refund period?', `busy-${i}`), t),
        ),
      );
      expect(started).toBe(threads);
      for (const t of targets) expect(t.lastFinal!.text).toContain('30 days');
    } finally {
      await busyClient.close();
      await busyState.close();
      await busy.close();
    }
  });
});
