// planReply alone: where a Discord message would be answered, from hand-made message shapes and
// a conversation/state that say what the store knows.
import { ChannelType, type Message } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { DM_WORKSPACE, planReply } from '../../adapters/discord/plan.js';
import type { ThreadRef } from '../../src/bridge/types.js';

const BOT = '900000000000000001';

function msg(over: {
  id?: string;
  guildId?: string | null;
  mentioned?: boolean;
  channel: Record<string, unknown>;
}): Message {
  const { channel } = over;
  return {
    id: over.id ?? '500',
    guildId: over.guildId === undefined ? 'G1' : over.guildId,
    mentions: { users: new Map(over.mentioned ? [[BOT, {}]] : []) },
    channel: {
      isThread: () => false,
      isTextBased: () => true,
      ...channel,
    },
  } as unknown as Message;
}

function deps(sessions: string[] = [], bound: string[] = []) {
  return {
    conversation: { hasSession: async (ref: ThreadRef) => sessions.includes(ref.thread) },
    state: { bindings: { get: async (key: string) => (bound.includes(key) ? 'bot' : undefined) } },
  } as unknown as Parameters<typeof planReply>[0];
}

describe('planReply', () => {
  it('answers a DM in place', async () => {
    const dm = msg({ guildId: null, channel: { id: 'D1', type: ChannelType.DM } });
    expect(await planReply(deps(), dm, BOT, undefined)).toMatchObject({
      kind: 'in-place',
      ref: { platform: 'discord', workspace: DM_WORKSPACE, channel: 'D1', thread: 'D1' },
    });
  });

  it('opens a thread for a mention in a text channel, and ignores an unmentioned message', async () => {
    const channel = { id: 'C1', type: ChannelType.GuildText, name: 'general' };
    const mention = msg({ mentioned: true, channel });
    expect(await planReply(deps(), mention, BOT, undefined)).toEqual({
      kind: 'new-thread',
      guildId: 'G1',
      channelName: 'general',
    });
    expect(await planReply(deps(), msg({ channel }), BOT, undefined)).toBeUndefined();
  });

  it('continues a reply-fallback conversation as a reply to the message', async () => {
    const chained = { platform: 'discord', workspace: 'G1', channel: 'C1', thread: '400' };
    const reply = msg({ channel: { id: 'C1', type: ChannelType.GuildText, name: 'general' } });
    expect(await planReply(deps(), reply, BOT, chained)).toMatchObject({
      kind: 'in-place',
      ref: chained,
      replyTo: reply,
    });
  });

  it('answers in a thread with a session, or a bound forum’s new post, without a mention', async () => {
    const thread = (parentType: ChannelType) => ({
      id: 'T1',
      type: ChannelType.PublicThread,
      guildId: 'G1',
      parentId: 'F1',
      parent: { type: parentType, name: 'help' },
      isThread: () => true,
    });
    const inThread = msg({ channel: thread(ChannelType.GuildText) });
    expect(await planReply(deps(), inThread, BOT, undefined)).toBeUndefined();
    expect(await planReply(deps(['T1']), inThread, BOT, undefined)).toMatchObject({
      kind: 'in-place',
      ref: { workspace: 'G1', channel: 'F1', thread: 'T1' },
      channelName: 'help',
    });
    const post = msg({ id: 'T1', channel: thread(ChannelType.GuildForum) });
    expect(await planReply(deps([], ['discord:G1:F1']), post, BOT, undefined)).toMatchObject({
      kind: 'in-place',
    });
    expect(await planReply(deps(), post, BOT, undefined)).toBeUndefined();
  });
});
