// Which Discord messages are answered, and where. A mention in a text channel opens a public
// thread on the message (the thread is the session); a new forum post is answered in its own
// thread when the forum has a chatbot or the bot is mentioned; later messages in a thread that
// has a session are answered without a mention; DMs are answered in the DM. When no thread can
// be made, the answer is a reply to the message.
import {
  ChannelType,
  ThreadAutoArchiveDuration,
  type AnyThreadChannel,
  type Message,
} from 'discord.js';
import type { Logger } from 'pino';
import type { Conversation, IncomingMessage, ThreadRef } from '../../src/bridge/types.js';
import type { StateStore } from '../../src/state/types.js';
import { NO_MENTIONS, NO_MENTIONS_REPLY } from './client.js';
import type { ChannelPace } from './pace.js';
import { createDiscordReplyTarget, type ReplyChannel } from './reply.js';
import { authorName, readableContent, threadNameFrom } from './text.js';

export const PLATFORM = 'discord';
/** The workspace of direct messages (they belong to no guild). */
export const DM_WORKSPACE = '@dm';
/** Long enough to cover a gateway reconnect and its replayed events. */
export const DEDUP_TTL_MS = 15 * 60_000;
/** A message that is only this word, in a DM or a session thread, starts a new session. */
const RESET_WORD = 'reset';

export interface MessageHandlerDeps {
  conversation: Conversation;
  state: StateStore;
  pace: ChannelPace;
  logger: Logger;
  botId(): string | undefined;
}

type Plan =
  | { kind: 'in-place'; ref: ThreadRef; channel: ReplyChannel; channelName?: string }
  | { kind: 'new-thread'; guildId: string; channelName?: string };

function isForum(type: ChannelType | undefined): boolean {
  return type === ChannelType.GuildForum || type === ChannelType.GuildMedia;
}

function threadRef(thread: AnyThreadChannel): ThreadRef {
  return {
    platform: PLATFORM,
    workspace: thread.guildId,
    channel: thread.parentId ?? thread.id,
    thread: thread.id,
  };
}

export function createMessageHandler(deps: MessageHandlerDeps) {
  const { conversation, state, logger } = deps;

  async function forumBound(guildId: string, forumId: string): Promise<boolean> {
    return (await state.bindings.get(`${PLATFORM}:${guildId}:${forumId}`)) !== undefined;
  }

  /** Where this message would be answered, or undefined when it is not for the bot. */
  async function plan(message: Message, botId: string): Promise<Plan | undefined> {
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
      if (forumPost && (await forumBound(channel.guildId, ref.channel))) return place;
      return (await conversation.hasSession(ref)) ? place : undefined;
    }
    if (!mentioned || !channel.isTextBased()) return undefined;
    const channelName = ('name' in channel ? channel.name : undefined) ?? undefined;
    return { kind: 'new-thread', guildId: message.guildId, channelName };
  }

  /** Opens a public thread on the message; undefined when Discord would not (429, permission…). */
  async function openThread(
    message: Message,
    question: string,
  ): Promise<AnyThreadChannel | undefined> {
    if (message.hasThread) return undefined;
    try {
      return await message.startThread({
        name: threadNameFrom(question, `Question from ${authorName(message)}`),
        autoArchiveDuration: ThreadAutoArchiveDuration.OneDay,
      });
    } catch (error) {
      logger.info(
        { err: error, channel: message.channelId, message: message.id },
        'discord: could not open a thread; answering as a reply',
      );
      return undefined;
    }
  }

  return async function onMessage(message: Message): Promise<void> {
    // Own and other bots' messages, webhooks and system notices are never answered.
    if (message.author.bot || message.webhookId !== null || message.system) return;
    const botId = deps.botId();
    if (botId === undefined) return;
    const where = await plan(message, botId);
    if (!where) return;
    // One answer per message id, across replicas and gateway reconnects (replayed events).
    if (!(await state.dedup.claim(`${PLATFORM}:message:${message.id}`, DEDUP_TTL_MS))) return;

    const question = readableContent(message, botId);
    if (question === '') {
      await message.reply({
        content: 'Ask me something after the mention, and I will answer in a thread.',
        allowedMentions: NO_MENTIONS_REPLY,
      });
      return;
    }

    let ref: ThreadRef;
    let channel: ReplyChannel;
    let replyTo: Message | undefined;
    if (where.kind === 'in-place') {
      ({ ref, channel } = where);
      if (question.toLowerCase() === RESET_WORD) {
        await conversation.reset(ref);
        await channel.send({
          content: 'Started over: your next message opens a new conversation.',
          allowedMentions: NO_MENTIONS,
        });
        return;
      }
    } else {
      const thread = await openThread(message, question);
      const parentId = message.channelId;
      if (thread) {
        ref = {
          platform: PLATFORM,
          workspace: where.guildId,
          channel: parentId,
          thread: thread.id,
        };
        channel = thread;
      } else {
        // The message itself is the root of this conversation.
        ref = {
          platform: PLATFORM,
          workspace: where.guildId,
          channel: parentId,
          thread: message.id,
        };
        channel = message.channel as ReplyChannel;
        replyTo = message;
      }
    }

    const incoming: IncomingMessage = {
      ...ref,
      messageId: message.id,
      userId: message.author.id,
      userName: authorName(message),
      channelName: where.channelName,
      text: question,
    };
    const target = createDiscordReplyTarget({ channel, replyTo, pace: deps.pace, logger });
    await conversation.handle(incoming, target);
  };
}
