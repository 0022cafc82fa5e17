// Thread context end to end on Discord: mentioned for the first time in a thread people started,
// or in reply to a chain of messages, the bot sends what was said before with the question to the
// local service, which answers from it; later messages go alone; `thread-context off` and a
// connection without the Message Content intent send the question alone.
import { ApplicationCommandOptionType as T } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchInteraction, MANAGE_GUILD, type InteractionRecord } from './fake/interactions.js';
import { snowflake, user, type FakeMessage } from './fake/payloads.js';
import { startEngineRig, type AnswerScript, type EngineRig } from './engine-rig.js';
import { alice } from './helpers.js';

let rig: EngineRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const ana = user(snowflake(), 'Ana');
const ben = user(snowflake(), 'Ben');

/** A stand-in for a model: it can only know the decision from the earlier messages. */
function decisionReader(query: string): AnswerScript | undefined {
  if (!query.endsWith('what did we decide?')) return { pieces: [`Noted: ${query}`] };
  const agreed = /^Ben: Agreed, (\w+) it is\.$/m.exec(query);
  return { pieces: [agreed ? `You decided on ${agreed[1]}.` : 'I do not know what you decided.'] };
}

async function begin(options: Parameters<typeof startEngineRig>[0] = {}): Promise<EngineRig> {
  rig = await startEngineRig(options);
  rig.answerFor = decisionReader;
  return rig;
}

/** Resolves with the bot's message in the channel once it reads `text`. */
function botSays(r: EngineRig, channelId: string, text: string): Promise<FakeMessage> {
  const matches = (m: FakeMessage) =>
    m.author.id === r.fake.bot.id && m.channel_id === channelId && m.content === text;
  const past = r.fake.botMessages().filter(matches);
  return Promise.race([
    r.fake.waitFor<FakeMessage>('edit', matches, past),
    r.fake.waitFor<FakeMessage>('message', matches, past),
  ]);
}

async function queriesOf(r: EngineRig, channel: string, thread: string): Promise<string[]> {
  const ref = await r.state.sessions.get(`discord:${r.fake.guildId}:${channel}:${thread}`);
  if (!ref?.sessionUuid) return [];
  return (await r.client.listMessages(ref.sessionUuid)).map((m) => m.query);
}

/** The command's answer arrived (at once, or after a deferral). */
const answered = (record: InteractionRecord) => (r: InteractionRecord) =>
  r === record && (r.callbacks[0]?.type === 4 || (r.messages[0]?.history.length ?? 0) > 0);

function listCalls(r: EngineRig, channelId: string): number {
  return r.fake.requests.filter(
    (q) => q.method === 'GET' && q.path === `/channels/${channelId}/messages`,
  ).length;
}

/** Ana proposes Lisbon in #general and opens a thread on it; Ben agrees in the thread. */
function offsiteThread(r: EngineRig): string {
  const { fake } = r;
  const proposal = fake.userMessage(
    fake.textChannel.id,
    ana,
    'We should pick Lisbon for the offsite.',
  );
  const thread = fake.userThread(ana, 'Offsite', proposal.id);
  fake.userMessage(thread.id, ben, 'Agreed, Lisbon it is.');
  return thread.id;
}

function ask(r: EngineRig, channelId: string, text: string, replyTo?: string): FakeMessage {
  return r.fake.userMessage(channelId, alice, `<@${r.fake.bot.id}> ${text}`, {
    mentions: [r.fake.bot],
    ...(replyTo ? { replyTo } : {}),
  });
}

const WITH_CONTEXT = [
  'Earlier messages in this thread (oldest first):',
  'Ana: We should pick Lisbon for the offsite.',
  'Ben: Agreed, Lisbon it is.',
  '',
  'Question: what did we decide?',
].join('\n');

describe('Discord thread context', () => {
  it("answers from a thread's earlier messages and its starter, once per session", async () => {
    const r = await begin();
    const { fake } = r;
    const thread = offsiteThread(r);
    ask(r, thread, 'what did we decide?');
    await botSays(r, thread, 'You decided on Lisbon.');
    expect(await queriesOf(r, fake.textChannel.id, thread)).toEqual([WITH_CONTEXT]);

    // A follow-up in the thread, no mention: the session goes on, nothing is read again.
    fake.userMessage(thread, alice, 'who books the flights?');
    await botSays(r, thread, 'Noted: who books the flights?');
    expect(await queriesOf(r, fake.textChannel.id, thread)).toEqual([
      WITH_CONTEXT,
      'who books the flights?',
    ]);
    expect(listCalls(r, thread)).toBe(1);
  });

  it('answers from the chain of messages a mention replies to, in the thread it opens', async () => {
    const r = await begin();
    const { fake } = r;
    const channel = fake.textChannel.id;
    const proposal = fake.userMessage(channel, ana, 'We should pick Lisbon for the offsite.');
    const agreed = fake.userMessage(channel, ben, 'Agreed, Lisbon it is.', {
      replyTo: proposal.id,
    });
    const question = ask(r, channel, 'what did we decide?', agreed.id);
    // The thread is opened on the question and takes its id.
    await botSays(r, question.id, 'You decided on Lisbon.');
    expect(await queriesOf(r, channel, question.id)).toEqual([WITH_CONTEXT]);
  });

  it("marks the bot's own messages in a chain, and a deleted message ends the chain", async () => {
    const r = await begin();
    const { fake } = r;
    const channel = fake.textChannel.id;
    // An old answer of the bot's that no reply link leads to any more.
    const old = fake.store({
      id: snowflake(),
      channel_id: channel,
      guild_id: fake.guildId,
      author: fake.bot,
      content: 'Where should the offsite be?',
      mentions: [],
      attachments: [],
      allowedMentions: [],
      history: ['Where should the offsite be?'],
      flags: 0,
    });
    const proposal = fake.userMessage(channel, ana, 'We should pick Lisbon for the offsite.', {
      replyTo: old.id,
    });
    const agreed = fake.userMessage(channel, ben, 'Agreed, Lisbon it is.', {
      replyTo: proposal.id,
    });
    const first = ask(r, channel, 'what did we decide?', agreed.id);
    await botSays(r, first.id, 'You decided on Lisbon.');
    expect(await queriesOf(r, channel, first.id)).toEqual([
      WITH_CONTEXT.replace('\nAna', '\n(assistant): Where should the offsite be?\nAna'),
    ]);

    // Ana deletes her message (the gateway tells the bot, as Discord does).
    fake.messages.delete(proposal.id);
    fake.gateway.dispatch('MESSAGE_DELETE', {
      id: proposal.id,
      channel_id: channel,
      guild_id: fake.guildId,
    });
    const second = ask(r, channel, 'what did we decide?', agreed.id);
    await botSays(r, second.id, 'You decided on Lisbon.');
    expect(await queriesOf(r, channel, second.id)).toEqual([WITH_CONTEXT.replace(/Ana: .*\n/, '')]);
  });

  it('sends the question alone once an admin turned thread context off', async () => {
    const r = await begin();
    const { fake } = r;
    const off = dispatchInteraction(fake, {
      user: alice,
      permissions: MANAGE_GUILD,
      channelId: fake.textChannel.id,
      group: 'thread-context',
      sub: 'off',
      options: [],
    });
    await fake.waitFor('interaction', answered(off));
    expect(await r.state.threadContext.get(`discord:${fake.guildId}`)).toEqual({ enabled: false });
    const thread = offsiteThread(r);
    ask(r, thread, 'what did we decide?');
    await botSays(r, thread, 'I do not know what you decided.');
    expect(await queriesOf(r, fake.textChannel.id, thread)).toEqual(['what did we decide?']);
    expect(listCalls(r, thread)).toBe(0);

    const on = dispatchInteraction(fake, {
      user: alice,
      permissions: MANAGE_GUILD,
      channelId: fake.textChannel.id,
      group: 'thread-context',
      sub: 'on',
      options: [{ name: 'messages', type: T.Number, value: 5 }],
    });
    await fake.waitFor('interaction', answered(on));
    expect(await r.state.threadContext.get(`discord:${fake.guildId}`)).toEqual({
      enabled: true,
      maxMessages: 5,
    });
  });

  it('sends the question alone without the Message Content intent', async () => {
    const r = await begin({ messageContent: 'off' });
    const { fake } = r;
    const thread = offsiteThread(r);
    ask(r, thread, 'what did we decide?');
    await botSays(r, thread, 'I do not know what you decided.');
    expect(await queriesOf(r, fake.textChannel.id, thread)).toEqual(['what did we decide?']);
    expect(listCalls(r, thread)).toBe(0);
  });
});
