// Direct messages and admins: CHATBRIDGE_ADMINS run admin commands in DMs (and in servers beside
// Manage Server), `chatbot default` in a DM binds every DM, "no chatbot" in a DM says how to fix
// it; and a reset thread stays the bot's (the real engine keeps it known).
import { afterEach, describe, expect, it } from 'vitest';
import { ApplicationCommandOptionType as T } from 'discord.js';
import { dispatchInteraction, type InteractionRecord } from './fake/interactions.js';
import type { FakeMessage } from './fake/payloads.js';
import { user } from './fake/payloads.js';
import { startEngineRig, type EngineRig } from './engine-rig.js';
import { alice, threadKeyIn } from './helpers.js';

const bob = user('100000000000000002', 'bob');

let rig: EngineRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const answered = (record: InteractionRecord) => (r: InteractionRecord) =>
  r === record && (r.callbacks[0]?.type === 4 || (r.messages[0]?.history.length ?? 0) > 0);

/** Resolves with the bot's message in the channel once it shows text matching the predicate. */
function botSays(r: EngineRig, channelId: string, predicate: (content: string) => boolean) {
  const matches = (m: FakeMessage) =>
    m.author.id === r.fake.bot.id && m.channel_id === channelId && predicate(m.content);
  const past = r.fake.botMessages(channelId).filter(matches);
  return Promise.race([
    r.fake.waitFor<FakeMessage>('message', matches, past),
    r.fake.waitFor<FakeMessage>('edit', matches, past),
  ]);
}

describe('discord DMs and admins', () => {
  it('a DM without a chatbot says what to do; a listed admin binds every DM with `chatbot default`', async () => {
    rig = await startEngineRig({ admins: [alice.id] });
    const f = rig.fake;
    await rig.state.bindings.delete('discord:@dm');
    const bobDm = f.dmChannel(bob);

    f.userMessage(bobDm.id, bob, 'hello?');
    const notice = await botSays(rig, bobDm.id, (c) => c.includes('CHATBRIDGE_ADMINS'));
    expect(notice.content).toContain('No chatbot answers direct messages yet');
    expect(notice.content).toContain('`/chatbridge chatbot default <name>` in a DM with the bot');
    expect(notice.content).toContain('CHATBRIDGE_CHATBOT');

    const setDefault = (who: typeof bob, channelId: string) =>
      dispatchInteraction(f, {
        user: who,
        dm: true,
        channelId,
        group: 'chatbot',
        sub: 'default',
        options: [{ name: 'chatbot', type: T.String, value: 'Helper' }],
      });
    // Not listed: refused (a DM has no Manage Server to check), nothing bound.
    const refused = setDefault(bob, bobDm.id);
    await f.waitFor('interaction', answered(refused));
    expect(refused.callbacks[0]).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(refused.messages[0]?.content).toContain('in a DM is for the user ids listed');
    expect(await rig.state.bindings.get('discord:@dm')).toBeUndefined();

    // Listed in CHATBRIDGE_ADMINS: served in her own DM, and it binds DMs as a whole.
    const aliceDm = f.dmChannel(alice);
    const served = setDefault(alice, aliceDm.id);
    await f.waitFor('interaction', answered(served));
    expect(served.messages[0]?.content).toContain('"Helper" is now the default chatbot');
    expect(served.messages[0]?.content).toContain('every direct message with the bot');
    expect(await rig.state.bindings.get('discord:@dm')).toBe(rig.chatbotUuid);

    rig.answers.push({ pieces: ['Hi Bob, ', 'how can I help?'] });
    f.userMessage(bobDm.id, bob, 'hello again');
    await botSays(rig, bobDm.id, (c) => c === 'Hi Bob, how can I help?');
  });

  it('CHATBRIDGE_ADMINS also count in a server, beside Manage Server', async () => {
    rig = await startEngineRig({ admins: [alice.id] });
    const f = rig.fake;
    const listing = (who: typeof bob) =>
      dispatchInteraction(f, {
        user: who,
        permissions: '0',
        channelId: f.textChannel.id,
        group: 'chatbot',
        sub: 'list',
      });
    const served = listing(alice);
    await f.waitFor('interaction', answered(served));
    expect(served.callbacks[0]).toMatchObject({ type: 5 });
    expect(served.messages[0]?.content).toContain('Helper');
    const refused = listing(bob);
    await f.waitFor('interaction', answered(refused));
    expect(refused.messages[0]?.content).toContain('needs the Manage Server permission');
  });
});

describe('discord reset with the engine', () => {
  it('"reset" in a bot thread starts over, and the thread still answers without a mention', async () => {
    rig = await startEngineRig();
    const f = rig.fake;
    rig.answers.push({ pieces: ['First answer.'] }, { pieces: ['Fresh answer.'] });
    const asked = f.userMessage(f.textChannel.id, alice, `<@${f.bot.id}> first`, {
      mentions: [f.bot],
    });
    await botSays(rig, asked.id, (c) => c === 'First answer.');
    const key = threadKeyIn(f, asked.id);
    const before = (await rig.state.sessions.get(key))?.sessionUuid;
    expect(before).toBeTruthy();

    f.userMessage(asked.id, alice, 'reset');
    await botSays(rig, asked.id, (c) => c.startsWith('Started over'));
    f.userMessage(asked.id, alice, 'and now, without a mention?');
    await botSays(rig, asked.id, (c) => c === 'Fresh answer.');
    const after = (await rig.state.sessions.get(key))?.sessionUuid;
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
  });
});
