// Which messages are answered and where, with a recording Conversation standing in for the engine.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayIntentBits } from 'discord.js';
import { threadKey } from '../../src/bridge/types.js';
import { ChannelKind } from './fake/payloads.js';
import { alice, otherBot, RecordingConversation, startRig, type Rig } from './helpers.js';
import { useFakeTime } from '../fake-time.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('discord routing', () => {
  it('connects with the intents it documents', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake } = rig;
    expect(rig.adapter.discord.user?.id).toBe(fake.bot.id);
    const wanted =
      GatewayIntentBits.Guilds |
      GatewayIntentBits.GuildMessages |
      GatewayIntentBits.DirectMessages |
      GatewayIntentBits.MessageContent;
    expect(fake.intents).toBe(wanted);
  });

  it('a mention in a text channel opens a thread named from the question and answers there', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake } = rig;
    const done = conversation.done(() => true);
    const asked = fake.userMessage(
      fake.textChannel.id,
      alice,
      `<@${fake.bot.id}> How do I reset my password?`,
      {
        mentions: [fake.bot],
      },
    );
    const incoming = await done;
    const thread = fake.channels.get(asked.id);
    expect(thread?.type).toBe(ChannelKind.PublicThread);
    expect(thread?.name).toBe('How do I reset my password?');
    expect(incoming).toMatchObject({
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.textChannel.id,
      thread: thread!.id,
      messageId: asked.id,
      userId: alice.id,
      text: 'How do I reset my password?',
    });
    expect(fake.botMessages(thread!.id).map((m) => m.content)).toEqual(['ok']);
  });
});

describe('discord routing: follow-ups, forums, DMs, bots', () => {
  it('answers later messages in a thread with a session without a mention, and nothing else', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake } = rig;
    let done = conversation.done(() => true);
    const first = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> first question`, {
      mentions: [fake.bot],
    });
    await done;
    // An unmentioned message in the channel itself is not for the bot…
    fake.userMessage(fake.textChannel.id, alice, 'just chatting');
    // …but one in the bot's thread is.
    done = conversation.done((m) => m.text === 'and a follow-up');
    fake.userMessage(first.id, alice, 'and a follow-up');
    const followUp = await done;
    expect(followUp.thread).toBe(first.id);
    expect(followUp.channel).toBe(fake.textChannel.id);
    expect(conversation.handled.map((m) => m.text)).toEqual(['first question', 'and a follow-up']);
  });

  it('answers a new forum post in its own thread when the forum has a chatbot, once', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake, state } = rig;
    await state.bindings.set(`discord:${fake.guildId}:${fake.forum.id}`, 'chatbot-uuid');
    const done = conversation.done(() => true);
    const post = fake.forumPost(alice, 'Billing', 'Why was I charged twice?');
    const incoming = await done;
    expect(incoming).toMatchObject({ channel: fake.forum.id, thread: post.id, messageId: post.id });
    expect(fake.botMessages(post.id)).toHaveLength(1);
    // The starter message came both from THREAD_CREATE (fetched) and MESSAGE_CREATE: one answer.
    const again = await state.intake!.queue('discord').keep(`discord:message:${post.id}`, '{}');
    expect(again).toBeUndefined();
    expect(conversation.handled).toHaveLength(1);
  });

  it('answers a forum post in an unbound forum only when mentioned', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake } = rig;
    const quiet = fake.forumPost(alice, 'Unbound', 'nobody asked the bot');
    const done = conversation.done(() => true);
    const post = fake.forumPost(alice, 'Asked', `<@${fake.bot.id}> what about this?`, [fake.bot]);
    expect((await done).thread).toBe(post.id);
    expect(conversation.handled.map((m) => m.thread)).toEqual([post.id]);
    expect(fake.botMessages(quiet.id)).toHaveLength(0);
  });

  it('answers DMs in the DM, one session per DM, and "reset" starts over', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake } = rig;
    const dm = fake.dmChannel(alice);
    let done = conversation.done(() => true);
    fake.userMessage(dm.id, alice, 'hello in private');
    const first = await done;
    expect(first).toMatchObject({
      workspace: '@dm',
      channel: dm.id,
      thread: dm.id,
      text: 'hello in private',
    });
    expect(fake.botMessages(dm.id).map((m) => m.content)).toEqual(['ok']);
    const reset = new Promise((resolve) => fake.once('message', resolve));
    fake.userMessage(dm.id, alice, 'reset');
    await reset;
    expect(conversation.resets).toEqual([
      { platform: 'discord', workspace: '@dm', channel: dm.id, thread: dm.id },
    ]);
    done = conversation.done(() => true);
    fake.userMessage(dm.id, alice, 'again');
    expect(threadKey(await done)).toBe(threadKey(first));
  });

  it('ignores other bots and its own echoed messages; role or @everyone mentions do not count', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake } = rig;
    fake.userMessage(fake.textChannel.id, otherBot, `<@${fake.bot.id}> I am a bot`, {
      mentions: [fake.bot],
    });
    fake.userMessage(fake.textChannel.id, alice, '@everyone hello');
    const done = conversation.done(() => true);
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> a person`, {
      mentions: [fake.bot],
    });
    await done;
    // Events are handled in order: everything before the person's message was already seen.
    expect(conversation.handled.map((m) => m.text)).toEqual(['a person']);
    expect(fake.botMessages().every((m) => m.author.bot)).toBe(true);
  });
});

describe('discord routing: when no thread can be made', () => {
  for (const failure of ['rate-limit', 'forbidden', 'exists'] as const) {
    it(`answers as a reply to the message (${failure})`, async () => {
      const conversation = new RecordingConversation();
      rig = await startRig(conversation);
      const { fake } = rig;
      fake.threadFailure = failure;
      const done = conversation.done(() => true);
      const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> help`, {
        mentions: [fake.bot],
      });
      const incoming = await done;
      expect(incoming).toMatchObject({ channel: fake.textChannel.id, thread: asked.id });
      const [reply] = fake.botMessages(fake.textChannel.id);
      expect(reply?.message_reference?.message_id).toBe(asked.id);
      expect(reply?.allowedMentions[0]).toEqual({ parse: [], replied_user: false });
      expect(fake.channels.has(asked.id)).toBe(false);
    });
  }
});

describe('discord routing: one answer per message id', () => {
  it('answers once across a gateway reconnect and across a restart sharing the store', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake, adapter, state } = rig;
    let done = conversation.done(() => true);
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> once`, {
      mentions: [fake.bot],
    });
    await done;

    // 1. The connection drops; the resumed session replays what came before.
    fake.gateway.resumeOverlap = 10;
    const resumed = new Promise((resolve) => adapter.discord.once('shardResume', resolve));
    // On fake time: discord.js waits 500 ms before it reconnects.
    const time = useFakeTime();
    try {
      fake.gateway.dropConnections();
      await time.settle(resumed);
    } finally {
      time.restore();
    }
    done = conversation.done((m) => m.text === 'after the reconnect');
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> after the reconnect`, {
      mentions: [fake.bot],
    });
    await done;
    expect(conversation.handled.map((m) => m.messageId)).not.toContain(undefined);
    expect(conversation.handled.filter((m) => m.messageId === asked.id)).toHaveLength(1);

    // 2. A restarted process (or a second replica) on the same store gets the event again.
    await adapter.stop();
    const claims: boolean[] = [];
    const queue = state.intake!.queue('discord');
    const keep = queue.keep.bind(queue);
    const claimed = new Promise<void>((resolve) => {
      queue.keep = async (key, payload) => {
        const first = await keep(key, payload);
        if (key.endsWith(asked.id)) {
          claims.push(first !== undefined);
          resolve();
        }
        return first;
      };
    });
    const second = await startRig(conversation, { fake, state });
    rig = {
      ...second,
      close: async () => {
        await second.adapter.stop();
        await fake.close();
        await state.close();
      },
    };
    fake.redeliver(asked);
    await claimed;
    expect(claims).toEqual([false]);
    expect(conversation.handled.filter((m) => m.messageId === asked.id)).toHaveLength(1);
  });
});

describe('discord routing: arrival order', () => {
  it('hands messages of one thread to the engine in the order they arrived', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation);
    const { fake, adapter } = rig;
    let done = conversation.done(() => true);
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> start`, {
      mentions: [fake.bot],
    });
    await done;

    // The first follow-up's routing lookup is slow; the second's would be instant.
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const handledWhenAsked: string[][] = [];
    const hasSession = conversation.hasSession.bind(conversation);
    conversation.hasSession = async (ref) => {
      handledWhenAsked.push(conversation.handled.map((m) => m.text));
      if (handledWhenAsked.length === 1) await firstHeld;
      return hasSession(ref);
    };
    // The adapter's listener runs before this one: once this sees the second message, the
    // adapter has taken it (and, without ordering, already asked about its session).
    adapter.discord.on('messageCreate', (message) => {
      if (message.content === 'second') releaseFirst();
    });
    done = conversation.done((m) => m.text === 'second');
    fake.userMessage(asked.id, alice, 'first');
    fake.userMessage(asked.id, alice, 'second');
    await done;
    expect(conversation.handled.map((m) => m.text)).toEqual(['start', 'first', 'second']);
    // The second message was looked at only after the first had reached the engine.
    expect(handledWhenAsked).toEqual([['start'], ['start', 'first']]);
  });
});
