// Which Discord messages are answered, and where. A mention in a text channel opens a public
// thread on the message (the thread is the session); a new forum post is answered in its own
// thread when the forum has a chatbot or the bot is mentioned; later messages in a thread that
// has a session are answered without a mention; DMs are answered in the DM. When no thread can
// be made, the answer is a reply to the message, and a Discord reply to one of the bot's answers
// there continues that conversation without a mention: which conversation each answer belongs to
// is kept in the state store (state.replyLinks), so the chain survives restarts and replicas.
import {
  ChannelType,
  ThreadAutoArchiveDuration,
  type AnyThreadChannel,
  type Message,
} from 'discord.js';
import type { Logger } from 'pino';
import {
  threadKey,
  type Conversation,
  type IncomingMessage,
  type ThreadRef,
} from '../../src/bridge/types.js';
import type { StateStore } from '../../src/state/types.js';
import { NO_MENTIONS, NO_MENTIONS_REPLY } from './client.js';
import type { ChannelPace } from './pace.js';
import { ArrivalOrder, type Started } from './arrival.js';
import { createDiscordReplyTarget, type ReplyChannel } from './reply.js';
import { authorName, readableContent, threadNameFrom } from './text.js';
import { earlierReader } from './thread-history.js';

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
  /** Whether the connection has the Message Content intent (else unmentioned text is empty). */
  receivesContent?(): boolean;
}

type Plan =
  | {
      kind: 'in-place';
      ref: ThreadRef;
      channel: ReplyChannel;
      channelName?: string;
      /** A reply-fallback conversation: answer as a reply to this message. */
      replyTo?: Message;
    }
  | { kind: 'new-thread'; guildId: string; channelName?: string };

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

export function createMessageHandler(deps: MessageHandlerDeps) {
  const { conversation, state, logger } = deps;
  const arrival = new ArrivalOrder();
  /** Per channel: replies are looked up in the order they arrived (see onMessage). */
  const replyLookups = new ArrivalOrder();
  let toldNoContent = false;

  /** A message for the bot came without text and without a mention: say why, once. */
  function noteEmpty(message: Message): void {
    if (toldNoContent || (deps.receivesContent?.() ?? true)) return;
    toldNoContent = true;
    logger.info(
      { channel: message.channelId },
      'discord: a follow-up arrived without its text (no Message Content intent); ' +
        'people must mention the bot to be read',
    );
  }

  /** The reply-fallback conversation this message replies into, if it replies to a bot answer. */
  async function chainOf(message: Message): Promise<ThreadRef | undefined> {
    const answerId = message.reference?.messageId;
    if (answerId === undefined) return undefined;
    const ref = await state.replyLinks.get(replyLinkKey(answerId));
    return ref?.platform === PLATFORM && ref.channel === message.channelId ? ref : undefined;
  }

  /** Remembers that a bot message belongs to this conversation, so replies to it continue it. */
  async function link(posted: Message, ref: ThreadRef): Promise<void> {
    try {
      await state.replyLinks.set(replyLinkKey(posted.id), ref);
    } catch (error) {
      // The answer itself is fine; a reply to this message will just need a mention.
      logger.warn(
        { err: error, channel: posted.channelId, message: posted.id },
        'discord: could not store which conversation an answer belongs to',
      );
    }
  }

  async function forumBound(guildId: string, forumId: string): Promise<boolean> {
    return (await state.bindings.get(`${PLATFORM}:${guildId}:${forumId}`)) !== undefined;
  }

  /**
   * Where this message would be answered, or undefined when it is not for the bot. `chained` is
   * the reply-fallback conversation the message replies into, already looked up.
   */
  async function plan(
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
      if (forumPost && (await forumBound(channel.guildId, ref.channel))) return place;
      return (await conversation.hasSession(ref)) ? place : undefined;
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

  /** Everything before the engine takes the message; returns the answer it started. */
  async function prepare(message: Message, botId: string, chained?: ThreadRef): Promise<Started> {
    const where = await plan(message, botId, chained);
    if (!where) return undefined;
    const question = readableContent(message, botId);
    // Empty and not addressed: an image-only message, or text Discord withheld (no Message
    // Content intent). Nothing to answer and nothing to ask for.
    if (question === '' && !message.mentions.users.has(botId)) {
      noteEmpty(message);
      return undefined;
    }
    // One answer per message id, across replicas and gateway reconnects (replayed events).
    if (!(await state.dedup.claim(`${PLATFORM}:message:${message.id}`, DEDUP_TTL_MS))) return;

    if (question === '') {
      await message.reply({
        content: 'Ask me something after the mention, and I will answer in a thread.',
        allowedMentions: NO_MENTIONS_REPLY,
      });
      return undefined;
    }

    let ref: ThreadRef;
    let channel: ReplyChannel;
    let replyTo: Message | undefined;
    if (where.kind === 'in-place') {
      ({ ref, channel, replyTo } = where);
      if (question.toLowerCase() === RESET_WORD) {
        await conversation.reset(ref);
        const content = 'Started over: your next message opens a new conversation.';
        if (replyTo) {
          const said = await replyTo.reply({ content, allowedMentions: NO_MENTIONS_REPLY });
          await link(said, ref);
        } else {
          await channel.send({ content, allowedMentions: NO_MENTIONS });
        }
        return undefined;
      }
    } else {
      const thread = await openThread(message, question);
      const parentId = message.channelId;
      // Without a thread, the message itself is the root of this conversation.
      ref = {
        platform: PLATFORM,
        workspace: where.guildId,
        channel: parentId,
        thread: thread ? thread.id : message.id,
      };
      channel = thread ?? (message.channel as ReplyChannel);
      replyTo = thread ? undefined : message;
    }

    const incoming: IncomingMessage = {
      ...ref,
      messageId: message.id,
      userId: message.author.id,
      userName: authorName(message),
      channelName: where.channelName,
      text: question,
    };
    const target = createDiscordReplyTarget({
      channel,
      replyTo,
      pace: deps.pace,
      logger,
      inDm: ref.workspace === DM_WORKSPACE,
      // Replies to any part of a reply-fallback answer continue its conversation.
      onPosted: replyTo ? (posted) => link(posted, ref) : undefined,
    });
    // What came before the question (a thread, a reply chain): read if the engine wants it.
    const earlier = earlierReader(message, botId, deps.receivesContent?.() ?? true);
    if (earlier) target.earlierMessages = earlier;
    return { answered: conversation.handle(incoming, target) };
  }

  return function onMessage(message: Message): Promise<void> {
    // Own and other bots' messages, webhooks and system notices are never answered.
    if (message.author.bot || message.webhookId !== null || message.system)
      return Promise.resolve();
    const botId = deps.botId();
    if (botId === undefined) return Promise.resolve();
    const channel = message.channel;
    // Messages of one thread or DM reach the engine in arrival order; a mention in a channel
    // starts a conversation of its own and waits for nobody.
    if (channel.isThread() || channel.type === ChannelType.DM || message.guildId === null) {
      return arrival.run(message.channelId, () => prepare(message, botId));
    }
    if (message.reference?.messageId === undefined) {
      return prepare(message, botId).then((started) => started?.answered);
    }
    // A reply may continue a reply-fallback conversation, whose follow-ups keep their order too.
    // The link is read from the store, so the lookups of one channel run in arrival order; each
    // then takes its place in its conversation's line before the next lookup is answered.
    return replyLookups.run(message.channelId, async () => {
      const chained = await chainOf(message);
      const answered = chained
        ? arrival.run(threadKey(chained), () => prepare(message, botId, chained))
        : prepare(message, botId).then((started) => started?.answered);
      return { answered };
    });
  };
}
