// One Discord process on a SQLite file, stopped mid-answer: its answer cut after the drain ends
// with the interrupted notice (not "please ask again"), the question stays in the file's queue,
// and the next start, on the same file, delivers the complete answer the service stored, once,
// without asking again. On memory the same stop keeps the restart notice (nobody can follow).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConversation, type ConversationEngine } from '../../src/bridge/engine.js';
import { INTERRUPTED_TEXT } from '../../src/bridge/takeover.js';
import { createDefaultKnowledge } from '../../src/local-service/knowledge-default.js';
import { startLocalService, type LocalService } from '../../src/local-service/index.js';
import { fromArray } from '../../src/local-service/pieces.js';
import type { ServiceClient } from '../../src/service/api.js';
import { createServiceClient } from '../../src/service/index.js';
import { openState, type State } from '../../src/state/index.js';
import { FakeDiscord } from './fake/discord.js';
import type { FakeMessage } from './fake/payloads.js';
import { alice, startRig, type Rig } from './helpers.js';

const KEY = 'restart-key';
const FULL = 'Answer to the held question.';
const dir = mkdtempSync(join(tmpdir(), 'chatbridge-restart-'));
let service: LocalService;
let client: ServiceClient;
let chatbot: string;
let fake: FakeDiscord;
let held: { reached: () => void; release: Promise<void> } | undefined;

beforeAll(async () => {
  const base = await createDefaultKnowledge({
    refusePrivateUrls: false,
    maxFetchBytes: 1024,
    fetchTimeoutMs: 1000,
  });
  service = await startLocalService({
    apiKeys: [KEY],
    knowledge: {
      ...base,
      answer: () => ({
        pieces: (async function* () {
          yield 'Answer ';
          held?.reached();
          await held?.release;
          yield* fromArray(['to the ', 'held question.']);
        })(),
        citations: () => ({}),
      }),
    },
  });
  client = createServiceClient({ baseUrl: service.url, apiKey: KEY });
  chatbot = (await client.createChatbot({ name: 'Restart', rate_limit: [100, 60] })).uuid;
  fake = await new FakeDiscord().start();
});

afterAll(async () => {
  await fake?.close();
  await client?.close();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A bridge process: its own engine and adapter on the given store, the shared fake. */
async function bridgeOn(state: State): Promise<{ rig: Rig; engine: ConversationEngine }> {
  const engine = createConversation({ client, state, defaultChatbot: chatbot });
  const rig = await startRig(engine, { client, state, fake, defaultChatbot: chatbot });
  return { rig, engine };
}

/**
 * Asks (a mention in the text channel, answered in a thread on it; or a DM, answered in the DM),
 * and stops the process mid-answer as `chatbridge start` does when the drain ran out.
 */
async function askAndStop(
  state: State,
  dm = false,
): Promise<{ asked: FakeMessage; orphan: FakeMessage; answersIn: string }> {
  let reached!: () => void;
  let release!: () => void;
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  held = { reached, release: new Promise<void>((resolve) => (release = resolve)) };
  const { rig, engine } = await bridgeOn(state);
  const asked = dm
    ? fake.userMessage(fake.dmChannel(alice).id, alice, 'held')
    : fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> held`, {
        mentions: [fake.bot],
      });
  // A mention is answered in a thread on it (the thread's id is the message's); a DM in the DM.
  const answersIn = dm ? asked.channel_id : asked.id;
  await atHold;
  const orphan = await fake.waitFor<FakeMessage>(
    'message',
    (m) => m.channel_id === answersIn && m.author.id === fake.bot.id,
    fake.botMessages(answersIn),
  );
  const stopped = rig.adapter.stop();
  engine.interrupt();
  await stopped;
  release();
  return { asked, orphan: fake.messages.get(orphan.id)!, answersIn };
}

describe('discord: stopped mid-answer, one process', () => {
  it('on a SQLite file, the next start delivers the complete answer', async () => {
    const url = `sqlite://${join(dir, 'bridge.sqlite')}`;
    const options = { intakeLeaseMs: 200, lockTtlMs: 200 };
    const before = await openState(url, options);
    const { asked, orphan } = await askAndStop(before);
    expect(orphan.content).toContain(INTERRUPTED_TEXT);
    expect(orphan.content).not.toContain('ask again');
    await before.close();

    const after = await openState(url, options);
    const { rig } = await bridgeOn(after);
    const answered = await fake.waitFor<FakeMessage>(
      'message',
      (m) => m.channel_id === asked.id && m.content.includes(FULL),
      fake.botMessages(asked.id),
    );
    expect(answered.id).not.toBe(orphan.id);
    expect(fake.botMessages(asked.id).filter((m) => m.content.includes(FULL))).toHaveLength(1);
    // Closed once, by the stopping process: the next start had nothing left open to close.
    expect(fake.messages.get(orphan.id)!.content.split(INTERRUPTED_TEXT)).toHaveLength(2);
    const thread = `discord:${fake.guildId}:${fake.textChannel.id}:${asked.id}`;
    const session = await after.sessions.get(thread);
    const queries = (await client.listMessages(session!.sessionUuid!)).map((m) => m.query);
    expect(queries).toEqual(['held']);
    await rig.adapter.stop();
    await after.close();
  });

  it('in a DM on a SQLite file, the next start finds the DM through REST and answers there', async () => {
    const url = `sqlite://${join(dir, 'bridge-dm.sqlite')}`;
    const options = { intakeLeaseMs: 200, lockTtlMs: 200 };
    const before = await openState(url, options);
    await before.bindings.set('discord:@dm', chatbot);
    const { orphan, answersIn } = await askAndStop(before, true);
    expect(orphan.content).toContain(INTERRUPTED_TEXT);
    await before.close();

    const after = await openState(url, options);
    const { rig } = await bridgeOn(after);
    const answered = await fake.waitFor<FakeMessage>(
      'message',
      (m) => m.channel_id === answersIn && m.content.includes(FULL),
      fake.botMessages(answersIn),
    );
    expect(answered.id).not.toBe(orphan.id);
    expect(fake.botMessages(answersIn).filter((m) => m.content.includes(FULL))).toHaveLength(1);
    expect(fake.messages.get(orphan.id)!.content.split(INTERRUPTED_TEXT)).toHaveLength(2);
    await rig.adapter.stop();
    await after.close();
  });

  it('on memory, nobody can follow: the cut answer says to ask again', async () => {
    const state = await openState('memory://');
    const { orphan } = await askAndStop(state);
    expect(orphan.content).toContain('Please ask again');
    expect(orphan.content).not.toContain(INTERRUPTED_TEXT);
    await state.close();
  });
});
