// Where a Discord message would be answered: in place (a DM, a thread with a session or a
// mention, a bound forum's new post, a reply into a reply-fallback conversation) or in a new
// thread on a mention in a text channel; undefined when the message is not for the bot.
import { ChannelType, type AnyThreadChannel, type Message } from 'discord.js';
import type { Conversation, ThreadRef } from '../../src/bridge/types.js';
import type { StateStore } from '../../src/state/types.js';
import type { ReplyChannel } from './reply.js';

export const PLATFORM = 'discord';
/** The workspace of direct messages (they belong to no guild). */
export const DM_WORKSPACE = '@dm';

export type Plan =
  | {
      kind: 'in-place';
      ref: ThreadRef;
      channel: ReplyChannel;
      channelName?: string;
      /** A reply-fallback conversation: answer as a reply to this message. */
      replyTo?: Message;
    }
  | { kind: 'new-thread'; guildId: string; channelName?: string };

export interface PlanDeps {
  conversation: Pick<Conversation, 'hasSession'>;
  state: Pick<StateStore, 'bindings'>;
}

function isForum(type: ChannelType | undefined): boolean {
  return type === ChannelType.GuildForum || type === ChannelType.GuildMedia;
}

/** The state.replyLinks key of a Discord message (message ids are unique across Discord). */
export function replyLinkKey(messageId: string): string {
  return `${PLATFORM}:${messageId}`;
}

function threadRef(thread: AnyThreadChannel): ThreadRef {
  return {
    platform: PLATFORM,
    workspace: thread.guildId,
    channel: thread.parentId ?? thread.id,
    thread: thread.id,
  };
}

async function forumBound(deps: PlanDeps, guildId: string, forumId: string): Promise<boolean> {
  return (await deps.state.bindings.get(`${PLATFORM}:${guildId}:${forumId}`)) !== undefined;
}

/**
 * Where this message would be answered, or undefined when it is not for the bot. `chained` is
 * the reply-fallback conversation the message replies into, already looked up.
 */
export async function planReply(
  deps: PlanDeps,
  message: Message,
  botId: string,
  chained: ThreadRef | undefined,
): Promise<Plan | undefined> {
  const mentioned = message.mentions.users.has(botId);
  const channel = message.channel;
  if (channel.type === ChannelType.DM || message.guildId === null) {
    const ref = {
      platform: PLATFORM,
      workspace: DM_WORKSPACE,
      channel: channel.id,
      thread: channel.id,
    };
    return { kind: 'in-place', ref, channel: channel as ReplyChannel };
  }
  if (channel.isThread()) {
    const ref = threadRef(channel);
    const place = { kind: 'in-place' as const, ref, channel, channelName: channel.parent?.name };
    if (mentioned) return place;
    // A forum post's starter message has the thread's id.
    const forumPost = message.id === channel.id && isForum(channel.parent?.type);
    if (forumPost && (await forumBound(deps, channel.guildId, ref.channel))) return place;
    return (await deps.conversation.hasSession(ref)) ? place : undefined;
  }
  if (!channel.isTextBased()) return undefined;
  const channelName = ('name' in channel ? channel.name : undefined) ?? undefined;
  // A reply to the bot's answer continues that conversation, mention or not.
  if (chained) {
    const replyChannel = channel as ReplyChannel;
    return {
      kind: 'in-place',
      ref: chained,
      channel: replyChannel,
      channelName,
      replyTo: message,
    };
  }
  if (!mentioned) return undefined;
  return { kind: 'new-thread', guildId: message.guildId, channelName };
}
