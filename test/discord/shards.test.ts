// Discord shards across processes: DISCORD_SHARDS / DISCORD_SHARD_COUNT are validated with the
// variable and the rule named; IDENTIFY carries [shard, count]; each server's events reach only
// the process holding its shard and DMs only shard 0's; a conversation one process answered is
// continued by another (all state in the shared store).
import { Events, type Interaction } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { discordConfig } from '../../adapters/discord/config.js';
import { readSettings } from '../../src/settings/index.js';
import type { FakeDiscord } from './fake/discord.js';
import { clickButton, type InteractionRecord } from './fake/interactions.js';
import { user, type FakeMessage } from './fake/payloads.js';
import { useFakeTime } from '../fake-time.js';
import { threadKeyIn } from './helpers.js';
import { startShardRig, type BotProcess, type ShardRig } from './shard-rig.js';

const ana = user('100000000000000011', 'ana');
const ben = user('100000000000000012', 'ben');

let rig: ShardRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Ana asks in `channelId`; resolves with her message and the answer once its 👍/👎 row is on. */
async function askForVotes(f: FakeDiscord, channelId: string) {
  const asked = f.userMessage(channelId, ana, `<@${f.bot.id}> refunds?`, { mentions: [f.bot] });
  const withButtons = (m: FakeMessage) =>
    m.channel_id === asked.id && (m.components ?? []).length > 0;
  const answer = await f.waitFor<FakeMessage>(
    'edit',
    withButtons,
    f.botMessages(asked.id).filter(withButtons),
  );
  const row = (answer.components as { components: { custom_id: string }[] }[])[0]!;
  return { asked, answer, row };
}

describe('DISCORD_SHARDS and DISCORD_SHARD_COUNT', () => {
  const env = (vars: Record<string, string>) =>
    discordConfig(readSettings('discord', { DISCORD_TOKEN: 'token', ...vars }))?.shards;

  it('reads ids, ranges, a count alone and auto', () => {
    expect(env({})).toBeUndefined();
    expect(env({ DISCORD_SHARDS: '1', DISCORD_SHARD_COUNT: '2' })).toEqual({
      mode: 'ids',
      ids: [1],
      count: 2,
    });
    expect(env({ DISCORD_SHARDS: '0, 2-4 7', DISCORD_SHARD_COUNT: '8' })).toEqual({
      mode: 'ids',
      ids: [0, 2, 3, 4, 7],
      count: 8,
    });
    expect(env({ DISCORD_SHARD_COUNT: '3' })).toEqual({ mode: 'ids', ids: [0, 1, 2], count: 3 });
    expect(env({ DISCORD_SHARDS: 'AUTO' })).toEqual({ mode: 'auto' });
  });

  it('refuses bad values, naming the variable and the rule', () => {
    const cases: [string | undefined, string | undefined, RegExp][] = [
      ['2', '2', /^DISCORD_SHARDS: shard id 2 is outside 0\.\.1 \(DISCORD_SHARD_COUNT is 2\)$/],
      ['0,1,0', '2', /^DISCORD_SHARDS: shard id 0 is listed twice$/],
      ['0-2,1', '4', /^DISCORD_SHARDS: shard id 1 is listed twice$/],
      ['3-1', '4', /^DISCORD_SHARDS: range 3-1 must go upwards$/],
      ['one', '2', /^DISCORD_SHARDS: "one" is not a shard id: use auto, or ids and ranges/],
      ['-1', '2', /^DISCORD_SHARDS: "-1" is not a shard id/],
      [' , ', '2', /^DISCORD_SHARDS: names no shard/],
      ['0', undefined, /^DISCORD_SHARD_COUNT: is required when DISCORD_SHARDS lists shard ids/],
      ['0', '0', /^ {2}- DISCORD_SHARD_COUNT must be a whole number from 1 to 100000 \(the bot's/m],
      [undefined, '1.5', /^ {2}- DISCORD_SHARD_COUNT must be a whole number/m],
      ['auto', '2', /^DISCORD_SHARD_COUNT: must not be set with DISCORD_SHARDS=auto/],
    ];
    for (const [shards, count, error] of cases) {
      const vars = { DISCORD_SHARDS: shards, DISCORD_SHARD_COUNT: count };
      expect(() => env(vars as Record<string, string>), `${shards} of ${count}`).toThrow(error);
    }
  });
});

describe('discord shards on the fake gateway', () => {
  it('IDENTIFY carries this process shard; auto takes every shard /gateway/bot recommends', async () => {
    rig = await startShardRig();
    const one = await rig.process({ mode: 'ids', ids: [1], count: 3 });
    expect(rig.fake.gateway.identified).toEqual([[1, 3]]);
    expect(one.adapter.connections?.()).toEqual([{ name: 'shard 1/3' }]);
    expect(one.adapter.notReady?.()).toBeUndefined();
    await one.stop();

    rig.fake.recommendedShards = 2;
    const auto = await rig.process({ mode: 'auto' });
    expect(rig.fake.gateway.identified.slice(1).sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(auto.adapter.connections?.()).toEqual([{ name: 'shard 0/2' }, { name: 'shard 1/2' }]);
  });

  it('names a reconnecting shard in readiness until it has resumed', async () => {
    rig = await startShardRig();
    const both = await rig.process({ mode: 'ids', ids: [0, 1], count: 2 });
    const client = both.adapter.discord;
    const snapshot = new Promise((resolve) =>
      client.once(Events.ShardReconnecting, (id: number) =>
        resolve({
          id,
          connections: both.adapter.connections?.(),
          notReady: both.adapter.notReady?.(),
        }),
      ),
    );
    const resumed = new Promise((resolve) => client.once(Events.ShardResume, resolve));
    // On fake time: @discordjs/ws waits 500 ms (node:timers/promises, which useFakeTime fakes)
    // before it reconnects a dropped shard.
    const time = useFakeTime();
    try {
      rig.fake.gateway.dropConnections(1);
      expect(await time.settle(snapshot)).toEqual({
        id: 1,
        connections: [{ name: 'shard 0/2' }, { name: 'shard 1/2', notReady: 'gateway connecting' }],
        notReady: 'shard 1/2 reconnecting',
      });
      await time.settle(resumed);
    } finally {
      time.restore();
    }
    expect(both.adapter.connections?.()).toEqual([{ name: 'shard 0/2' }, { name: 'shard 1/2' }]);
    expect(both.adapter.notReady?.()).toBeUndefined();
  });

  it("routes each server's events to its shard's process only, and a DM to shard 0 once", async () => {
    rig = await startShardRig();
    const f = rig.fake;
    const zero = f.addGuild(0, 2);
    const one = f.addGuild(1, 2);
    const a = await rig.process({ mode: 'ids', ids: [0], count: 2 });
    const b = await rig.process({ mode: 'ids', ids: [1], count: 2 });
    // Each process was told only of its own servers.
    expect(a.adapter.discord.guilds.cache.has(zero.guildId)).toBe(true);
    expect(a.adapter.discord.guilds.cache.has(one.guildId)).toBe(false);
    expect(b.adapter.discord.guilds.cache.has(one.guildId)).toBe(true);
    expect(b.adapter.discord.guilds.cache.has(zero.guildId)).toBe(false);

    const mention = `<@${f.bot.id}>`;
    const inZero = f.userMessage(zero.textChannel.id, ana, `${mention} zero?`, {
      mentions: [f.bot],
    });
    const inOne = f.userMessage(one.textChannel.id, ben, `${mention} one?`, { mentions: [f.bot] });
    const dm = f.dmChannel(ben);
    const direct = f.userMessage(dm.id, ben, 'in private?');
    await rig.botSays(inZero.id, (c) => c === 'Answer to "zero?" after 0 earlier turn(s).');
    await rig.botSays(inOne.id, (c) => c === 'Answer to "one?" after 0 earlier turn(s).');
    await rig.botSays(dm.id, (c) => c === 'Answer to "in private?" after 0 earlier turn(s).');

    expect(f.gateway.shardsThatGot('MESSAGE_CREATE', inZero.id)).toEqual(['0/2']);
    expect(f.gateway.shardsThatGot('MESSAGE_CREATE', inOne.id)).toEqual(['1/2']);
    expect(f.gateway.shardsThatGot('MESSAGE_CREATE', direct.id)).toEqual(['0/2']);
    expect(a.handled.sort()).toEqual([inZero.id, direct.id].sort());
    expect(b.handled).toEqual([inOne.id]);
    // The DM was answered once: one message from the bot there.
    expect(f.botMessages(dm.id)).toHaveLength(1);
  });

  it('a thread answered by one process is continued by another (after re-sharding)', async () => {
    rig = await startShardRig();
    const f = rig.fake;
    const guild = f.addGuild(1, 2);
    // One process holds both shards and answers first.
    const single = await rig.process({ mode: 'ids', ids: [0, 1], count: 2 });
    const asked = f.userMessage(guild.textChannel.id, ana, `<@${f.bot.id}> first?`, {
      mentions: [f.bot],
    });
    await rig.botSays(asked.id, (c) => c === 'Answer to "first?" after 0 earlier turn(s).');
    expect(single.handled).toEqual([asked.id]);
    const key = threadKeyIn(guild, asked.id);
    const session = (await rig.state.sessions.get(key))?.sessionUuid;
    expect(session).toBeTruthy();
    await single.stop();

    // Now two processes share the shards; the thread's server is on shard 1.
    const a = await rig.process({ mode: 'ids', ids: [0], count: 2 });
    const b = await rig.process({ mode: 'ids', ids: [1], count: 2 });
    // A follow-up without a mention: only a process that reads the session from the store
    // knows the thread is the bot's, and the service sees the earlier turn. On fake time: the
    // thread's budget (5 posts and edits in 5 s) was spent on the first answer. Awaited until
    // the answer is final (its 👍/👎 row on): an edit still paced when fake time ends would
    // hold the process's stop for the rest of the budget's window in real time.
    const time = useFakeTime(250);
    const followUp = f.userMessage(asked.id, ana, 'and then?');
    const final = (m: FakeMessage) =>
      m.channel_id === asked.id &&
      m.content === 'Answer to "and then?" after 1 earlier turn(s).' &&
      (m.components ?? []).length > 0;
    try {
      await time.settle(
        f.waitFor<FakeMessage>('edit', final, f.botMessages(asked.id).filter(final)),
      );
    } finally {
      time.restore();
    }
    expect(b.handled).toEqual([followUp.id]);
    expect(a.handled).toEqual([]);
    expect((await rig.state.sessions.get(key))?.sessionUuid).toBe(session);
    expect(await rig.client.listMessages(session!)).toHaveLength(2);
  });

  it('a vote on an answer another process gave is recorded by the process now holding its shard', async () => {
    rig = await startShardRig();
    const f = rig.fake;
    const guild = f.addGuild(1, 2);
    // One process holds both shards and answers.
    const single = await rig.process({ mode: 'ids', ids: [0, 1], count: 2 });
    const { asked, answer, row } = await askForVotes(f, guild.textChannel.id);
    await single.stop();

    // Re-sharded: the click on that answer reaches the process holding shard 1 only.
    const a = await rig.process({ mode: 'ids', ids: [0], count: 2 });
    await rig.process({ mode: 'ids', ids: [1], count: 2 });
    const click = clickButton(f, {
      user: ben,
      channelId: asked.id,
      guildId: guild.guildId,
      message: answer,
      customId: row.components[1]!.custom_id,
    });
    const modal = await f.waitFor<InteractionRecord>(
      'interaction',
      (record) => record === click && record.callbacks.length > 0,
    );
    expect(modal.callbacks[0]).toMatchObject({ type: 9 });
    expect(f.gateway.shardsThatGot('INTERACTION_CREATE', click.id)).toEqual(['1/2']);
    expect(await rig.state.feedback.list()).toEqual([
      expect.objectContaining({
        vote: 'down',
        userId: ben.id,
        workspace: guild.guildId,
        question: 'refunds?',
        chatbotUuid: rig.chatbotUuid,
      }),
    ]);
    expect(a.handled).toEqual([]);
  });
});

describe('interactions on two processes holding the same shard', () => {
  it('a 👍/👎 click is handled by one of them (the claim in the shared store), not both', async () => {
    rig = await startShardRig();
    const f = rig.fake;
    // A rolling update: the old and the new container hold shard 0 of 1 for a while.
    const a = await rig.process({ mode: 'ids', ids: [0], count: 1 });
    const b = await rig.process({ mode: 'ids', ids: [0], count: 1 });
    const { asked, answer, row } = await askForVotes(f, f.textChannel.id);
    const up = row.components[0]!.custom_id;

    // Both processes receive the click: wait until each has it, then let each finish its work.
    const received = (bot: BotProcess, id: string) =>
      new Promise<void>((resolve) => {
        const seen = (interaction: Interaction) => {
          if (interaction.id !== id) return;
          bot.adapter.discord.off(Events.InteractionCreate, seen);
          resolve();
        };
        bot.adapter.discord.on(Events.InteractionCreate, seen);
      });
    const click = clickButton(f, { user: ana, channelId: asked.id, message: answer, customId: up });
    await Promise.all([received(a, click.id), received(b, click.id)]);
    await a.stop();
    await b.stop();

    const callbacks = f.requests.filter(
      (r) => r.method === 'POST' && r.path.startsWith(`/interactions/${click.id}/`),
    );
    expect(callbacks).toHaveLength(1);
    expect(click.callbacks).toEqual([
      expect.objectContaining({ type: 4, data: expect.objectContaining({ flags: 64 }) }),
    ]);
    expect(await rig.state.feedback.list()).toEqual([
      expect.objectContaining({ vote: 'up', userId: ana.id, workspace: f.guildId }),
    ]);
  });
});
