// When no thread can be made the bot answers as a reply; a Discord reply to that answer
// continues the same conversation without a mention. Replies to anyone else do not. Which
// conversation an answer belongs to lives in the state store, so a restarted adapter (or
// another replica) continues the chain too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { replyLinkKey } from '../../adapters/discord/messages.js';
import { threadKey } from '../../src/bridge/types.js';
import { openState } from '../../src/state/index.js';
import { FakeDiscord } from './fake/discord.js';
import type { FakeMessage } from './fake/payloads.js';
import { gate, startEngineRig } from './engine-rig.js';
import { alice, otherBot, RecordingConversation, startRig, type Rig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const dir = mkdtempSync(join(tmpdir(), 'chatbridge-discord-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves with the bot's message in the channel that replies to `questionId` with this text. */
function answerTo(rig: Rig, questionId: string, text: string): Promise<FakeMessage> {
  const matches = (m: FakeMessage) =>
    m.author.id === rig.fake.bot.id &&
    m.message_reference?.message_id === questionId &&
    m.content === text;
  const past = rig.fake.botMessages().filter(matches);
  return Promise.race([
    rig.fake.waitFor<FakeMessage>('edit', matches, past),
    rig.fake.waitFor<FakeMessage>('message', matches, past),
  ]);
}

describe('discord reply-fallback conversations', () => {
  it('a reply to the bot answer, without a mention, continues the same session', async () => {
    const engine = await startEngineRig();
    rig = engine;
    const { fake, state } = engine;
    fake.threadFailure = 'rate-limit';
    // The first answer is edited once: an edit proves discord.js has the posted message (and
    // the adapter its id), which the fake's 'message' event alone does not.
    const release = gate();
    engine.pacer = (index) => (index === 1 ? release.wait() : Promise.resolve());
    engine.answers.push({ pieces: ['First ', 'answer.'] }, { pieces: ['Second answer.'] });
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> one`, {
      mentions: [fake.bot],
    });
    await fake.waitFor<FakeMessage>('message', (m) => m.message_reference?.message_id === asked.id);
    release.open();
    const first = await fake.waitFor<FakeMessage>(
      'edit',
      (m) => m.message_reference?.message_id === asked.id && m.content === 'First answer.',
    );
    const key = `discord:${fake.guildId}:${fake.textChannel.id}:${asked.id}`;
    const session = await state.sessions.get(key);
    expect(session?.sessionUuid).toBeTruthy();

    const followUp = fake.userMessage(fake.textChannel.id, alice, 'two, no mention', {
      replyTo: first.id,
    });
    const second = await answerTo(engine, followUp.id, 'Second answer.');
    expect(second.channel_id).toBe(fake.textChannel.id);
    expect(second.allowedMentions[0]).toEqual({ parse: [], replied_user: false });
    expect((await state.sessions.get(key))?.sessionUuid).toBe(session?.sessionUuid);
    const messages = await engine.client.listMessages(session!.sessionUuid);
    expect(messages.map((m) => m.query)).toEqual(['one', 'two, no mention']);
    // No thread was made on the follow-up either.
    expect(fake.channels.has(followUp.id)).toBe(false);
  });

  it('follows a chain of replies; ignores replies to people, other bots, and unmentioned chatter', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake } = rig;
    fake.threadFailure = 'forbidden';
    let done = conversation.done(() => true);
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> start`, {
      mentions: [fake.bot],
    });
    const root = await done;
    const [answer] = fake.botMessages(fake.textChannel.id);
    expect(answer?.message_reference?.message_id).toBe(asked.id);

    // Replies to a person's message and another bot's reply to the answer are not for the bot.
    fake.userMessage(fake.textChannel.id, alice, 'reply to a person', { replyTo: asked.id });
    fake.userMessage(fake.textChannel.id, otherBot, 'a bot replying', { replyTo: answer!.id });
    done = conversation.done((m) => m.text === 'second');
    const second = fake.userMessage(fake.textChannel.id, alice, 'second', {
      replyTo: answer!.id,
    });
    expect(threadKey(await done)).toBe(threadKey(root));

    // The answer to the follow-up is itself a reply that continues the chain.
    const reply = fake
      .botMessages(fake.textChannel.id)
      .find((m) => m.message_reference?.message_id === second.id);
    expect(reply).toBeDefined();
    done = conversation.done((m) => m.text === 'third');
    fake.userMessage(fake.textChannel.id, alice, 'third', { replyTo: reply!.id });
    const third = await done;
    expect(threadKey(third)).toBe(threadKey(root));
    // Events are handled in order: the ignored ones came before and never reached the engine.
    expect(conversation.handled.map((m) => m.text)).toEqual(['start', 'second', 'third']);
  });
});

describe('discord reply-fallback conversations across restarts and replicas', () => {
  it('a fresh adapter on the same store continues a chain the first one answered', async () => {
    const url = `sqlite://${join(dir, 'restart.sqlite')}`;
    const fake = await new FakeDiscord().start();
    fake.threadFailure = 'forbidden';
    const before = new RecordingConversation();
    const first = await startRig(before, { fake, state: await openState(url) });
    const started = before.done(() => true);
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> start`, {
      mentions: [fake.bot],
    });
    const root = await started;
    const [answer] = fake.botMessages(fake.textChannel.id);
    expect(answer?.message_reference?.message_id).toBe(asked.id);
    // The process goes away: adapter, conversation and store connection.
    await first.adapter.stop();
    await first.state.close();

    const after = new RecordingConversation();
    rig = await startRig(after, { fake, state: await openState(url) });
    expect(await rig.state.replyLinks.get(replyLinkKey(answer!.id))).toEqual({
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.textChannel.id,
      thread: asked.id,
    });
    const continued = after.done((m) => m.text === 'after the restart');
    const followUp = fake.userMessage(fake.textChannel.id, alice, 'after the restart', {
      replyTo: answer!.id,
    });
    expect(threadKey(await continued)).toBe(threadKey(root));
    // Its answer is a reply to the follow-up, and is linked to the same conversation in turn.
    const reply = fake
      .botMessages(fake.textChannel.id)
      .find((m) => m.message_reference?.message_id === followUp.id);
    expect(reply).toBeDefined();
    expect((await rig.state.replyLinks.get(replyLinkKey(reply!.id)))?.thread).toBe(asked.id);
  });

  it('hands replies of one chain to the engine in arrival order, even when a lookup is slow', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake, adapter, state } = rig;
    fake.threadFailure = 'forbidden';
    let done = conversation.done(() => true);
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> start`, {
      mentions: [fake.bot],
    });
    await done;
    const [answer] = fake.botMessages(fake.textChannel.id);

    // The first reply's link lookup is held until the adapter has taken the second reply.
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const get = state.replyLinks.get.bind(state.replyLinks);
    let lookups = 0;
    state.replyLinks.get = async (key) => {
      if (++lookups === 1) await firstHeld;
      return get(key);
    };
    adapter.discord.on('messageCreate', (message) => {
      if (message.content === 'second') releaseFirst();
    });
    done = conversation.done((m) => m.text === 'second');
    fake.userMessage(fake.textChannel.id, alice, 'first', { replyTo: answer!.id });
    fake.userMessage(fake.textChannel.id, alice, 'second', { replyTo: answer!.id });
    await done;
    expect(conversation.handled.map((m) => m.text)).toEqual(['start', 'first', 'second']);
    expect(lookups).toBe(2);
  });
});
