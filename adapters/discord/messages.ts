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
  type Client,
  type Message,
} from 'discord.js';
import type { Logger } from 'pino';
import {
  threadKey,
  type Conversation,
  type IncomingMessage,
  type ThreadRef,
} from '../../src/bridge/types.js';
import {
  NOT_TAKEN_TEXT,
  withRetries,
  type Intake,
  type KeptWork,
} from '../../src/bridge/intake.js';
import type { StateStore } from '../../src/state/types.js';
import { NO_MENTIONS, NO_MENTIONS_REPLY } from './client.js';
import type { ChannelPace } from './pace.js';
import { ArrivalOrder, type Started } from './arrival.js';
import { DM_WORKSPACE, PLATFORM, planReply, replyLinkKey, type Plan } from './plan.js';
import { createDiscordReplyTarget, type ReplyChannel } from './reply.js';
import { authorName, readableContent, threadNameFrom } from './text.js';
import { earlierReader } from './thread-history.js';
import {
  closeInterruptedMessages,
  fetchKeptMessage,
  threadOn,
  type KeptDiscordEvent,
} from './takeover.js';

export { PLATFORM, DM_WORKSPACE, replyLinkKey } from './plan.js';
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
  /** Waits between tries of taking a message in while the store is down (TAKE_RETRY_MS). */
  takeRetryMs?: readonly number[];
  /** The connected discord.js client (replaced when it reconnects without an intent). */
  client(): Client;
  /** Where each message to answer is kept until its answer is final. */
  intake: Intake<KeptDiscordEvent>;
}

/** Where the answer goes: the conversation, the channel, and the message it replies to. */
interface Place {
  ref: ThreadRef;
  channel: ReplyChannel;
  replyTo: Message | undefined;
}

export interface MessageHandler {
  /** A message from the gateway. */
  onMessage(message: Message): Promise<void>;
  /** A kept message whose holder died (or handed it over): answered here. */
  resume(kept: KeptDiscordEvent, work: KeptWork): Promise<void>;
}

export function createMessageHandler(deps: MessageHandlerDeps): MessageHandler {
  const router = new MessageRouter(deps);
  return {
    onMessage: (message) => router.onMessage(message),
    resume: (kept, work) => router.resume(kept, work),
  };
}

class MessageRouter {
  private readonly arrival = new ArrivalOrder();
  /** Per channel: replies are looked up in the order they arrived (see onMessage). */
  private readonly replyLookups = new ArrivalOrder();
  private toldNoContent = false;

  constructor(private readonly deps: MessageHandlerDeps) {}

  onMessage(message: Message): Promise<void> {
    // Own and other bots' messages, webhooks and system notices are never answered.
    if (message.author.bot || message.webhookId !== null || message.system)
      return Promise.resolve();
    const botId = this.deps.botId();
    if (botId === undefined) return Promise.resolve();
    const channel = message.channel;
    // Messages of one thread or DM reach the engine in arrival order; a mention in a channel
    // starts a conversation of its own and waits for nobody.
    if (channel.isThread() || channel.type === ChannelType.DM || message.guildId === null) {
      return this.arrival.run(message.channelId, () => this.prepare(message, botId));
    }
    if (message.reference?.messageId === undefined) {
      return this.prepare(message, botId).then((started) => started?.answered);
    }
    // A reply may continue a reply-fallback conversation, whose follow-ups keep their order too.
    // The link is read from the store, so the lookups of one channel run in arrival order; each
    // then takes its place in its conversation's line before the next lookup is answered.
    return this.replyLookups.run(message.channelId, async () => {
      const chained = await this.chainOf(message);
      const answered = chained
        ? this.arrival.run(threadKey(chained), () => this.prepare(message, botId, chained))
        : this.prepare(message, botId).then((started) => started?.answered);
      return { answered };
    });
  }

  /** A message for the bot came without text and without a mention: say why, once. */
  private noteEmpty(message: Message): void {
    if (this.toldNoContent || (this.deps.receivesContent?.() ?? true)) return;
    this.toldNoContent = true;
    this.deps.logger.info(
      { channel: message.channelId },
      'discord: a follow-up arrived without its text (no Message Content intent); ' +
        'people must mention the bot to be read',
    );
  }

  /** The reply-fallback conversation this message replies into, if it replies to a bot answer. */
  private async chainOf(message: Message): Promise<ThreadRef | undefined> {
    const answerId = message.reference?.messageId;
    if (answerId === undefined) return undefined;
    const ref = await this.deps.state.replyLinks.get(replyLinkKey(answerId));
    return ref?.platform === PLATFORM && ref.channel === message.channelId ? ref : undefined;
  }

  /** Remembers that a bot message belongs to this conversation, so replies to it continue it. */
  private async link(posted: Message, ref: ThreadRef): Promise<void> {
    try {
      await this.deps.state.replyLinks.set(replyLinkKey(posted.id), ref);
    } catch (error) {
      // The answer itself is fine; a reply to this message will just need a mention.
      this.deps.logger.warn(
        { err: error, channel: posted.channelId, message: posted.id },
        'discord: could not store which conversation an answer belongs to',
      );
    }
  }

  /** Opens a public thread on the message; undefined when Discord would not (429, permission…). */
  private async openThread(
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
      this.deps.logger.info(
        { err: error, channel: message.channelId, message: message.id },
        'discord: could not open a thread; answering as a reply',
      );
      return undefined;
    }
  }

  /** Everything before the engine takes the message; returns the answer it started. */
  private async prepare(message: Message, botId: string, chained?: ThreadRef): Promise<Started> {
    // The gateway never delivers a message again: a store that is down is waited for (in
    // memory, bounded), then the person is told their question was not taken.
    const where = await this.taken(message, botId, () =>
      planReply(this.deps, message, botId, chained),
    );
    if (!where) return undefined;
    const question = readableContent(message, botId);
    // Empty and not addressed: an image-only message, or text Discord withheld (no Message
    // Content intent). Nothing to answer and nothing to ask for.
    if (question === '' && !message.mentions.users.has(botId)) {
      this.noteEmpty(message);
      return undefined;
    }
    // Kept until its answer is final, once per message id across replicas and gateway
    // reconnects (replayed events): a process that dies answering leaves it to another.
    const key = `${PLATFORM}:message:${message.id}`;
    const kept = keptEvent(message, question, where);
    const work = await this.taken(message, botId, () => this.deps.intake.keep(key, kept));
    if (!work) return undefined;
    return this.answerKept(message, botId, where, question, work);
  }

  /** A kept message whose holder died: read again through REST and answered here. */
  async resume(kept: KeptDiscordEvent, work: KeptWork): Promise<void> {
    const botId = this.deps.botId();
    // Discord or this connection is down now: let it go for a later sweep (anyone's); after a
    // few takeovers the intake gives it up.
    const later = async (err: unknown) => {
      this.deps.logger.warn({ err, message: kept.message.id }, 'discord: takeover later');
      await work.job.handOff?.();
    };
    if (botId === undefined) return later(new Error('not connected'));
    let message: Message | undefined;
    try {
      message = await fetchKeptMessage(this.client, kept.message);
    } catch (error) {
      return later(error);
    }
    if (!message) {
      // Gone (deleted, the channel or server no longer the bot's): nothing to answer it in.
      await work.finish();
      return;
    }
    const { plan } = kept;
    const where: Plan =
      plan.kind === 'in-place'
        ? {
            kind: 'in-place',
            ref: plan.ref,
            channel: message.channel as ReplyChannel,
            ...(plan.channelName !== undefined ? { channelName: plan.channelName } : {}),
            ...(plan.replyTo ? { replyTo: message } : {}),
          }
        : { ...plan };
    const started = await this.answerKept(message, botId, where, kept.question, work, true);
    await started?.answered;
  }

  /** Answers a kept message; the event is finished when its answer is final (or there is none). */
  private async answerKept(
    message: Message,
    botId: string,
    where: Plan,
    question: string,
    work: KeptWork,
    resumed = false,
  ): Promise<Started> {
    let place: Place | undefined;
    try {
      if (question === '') {
        await message.reply({
          content: 'Ask me something after the mention, and I will answer in a thread.',
          allowedMentions: NO_MENTIONS_REPLY,
        });
      } else {
        place = await this.placeFor(where, message, question, resumed);
      }
    } finally {
      if (!place) await work.finish();
    }
    if (!place) return undefined;
    const incoming: IncomingMessage = {
      ...place.ref,
      messageId: message.id,
      userId: message.author.id,
      userName: authorName(message),
      channelName: where.channelName,
      text: question,
    };
    const answered = this.deps.conversation
      .handle(incoming, this.targetFor(place, message, botId), work.job)
      // finally() awaits the promise its callback returns; the answer settles after finish().
      // oxlint-disable-next-line typescript/no-misused-promises
      .finally(() => work.finish());
    return { answered };
  }

  /** The discord.js client of the messages (REST reaches every server, whichever shard). */
  private get client() {
    return this.deps.client();
  }

  /**
   * `step` (a store read or claim), tried again while the store is down; when it stays down,
   * a message meant for the bot is told so, and undefined is returned.
   */
  private async taken<T>(
    message: Message,
    botId: string,
    step: () => Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await withRetries(step, undefined, this.deps.takeRetryMs);
    } catch (error) {
      const { logger } = this.deps;
      logger.error({ err: error, message: message.id }, 'discord: could not take a message in');
      const forUs = message.guildId === null || message.mentions.users.has(botId);
      if (forUs) {
        await message
          .reply({ content: NOT_TAKEN_TEXT, allowedMentions: NO_MENTIONS_REPLY })
          .catch((failed: unknown) => logger.warn({ err: failed }, 'discord: notice failed'));
      }
      return undefined;
    }
  }

  /** The place of the answer; undefined when the message was "reset" (answered here). */
  private async placeFor(
    where: Plan,
    message: Message,
    question: string,
    resumed = false,
  ): Promise<Place | undefined> {
    if (where.kind === 'in-place') {
      const { ref, channel, replyTo } = where;
      if (question.toLowerCase() === RESET_WORD) {
        await this.deps.conversation.reset(ref);
        const content = 'Started over: your next message opens a new conversation.';
        if (replyTo) {
          const said = await replyTo.reply({ content, allowedMentions: NO_MENTIONS_REPLY });
          await this.link(said, ref);
        } else {
          await channel.send({ content, allowedMentions: NO_MENTIONS });
        }
        return undefined;
      }
      return { ref, channel, replyTo };
    }
    // Taken over: the thread the dead process may have opened already is the place.
    const thread =
      (resumed ? await threadOn(message) : undefined) ?? (await this.openThread(message, question));
    const parentId = message.channelId;
    // Without a thread, the message itself is the root of this conversation.
    const ref = {
      platform: PLATFORM,
      workspace: where.guildId,
      channel: parentId,
      thread: thread ? thread.id : message.id,
    };
    const channel = thread ?? (message.channel as ReplyChannel);
    return { ref, channel, replyTo: thread ? undefined : message };
  }

  private targetFor({ ref, channel, replyTo }: Place, message: Message, botId: string) {
    const target = createDiscordReplyTarget({
      channel,
      replyTo,
      pace: this.deps.pace,
      logger: this.deps.logger,
      inDm: ref.workspace === DM_WORKSPACE,
      // Replies to any part of a reply-fallback answer continue its conversation.
      onPosted: replyTo ? (posted) => this.link(posted, ref) : undefined,
    });
    // What came before the question (a thread, a reply chain): read if the engine wants it.
    const earlier = earlierReader(message, botId, this.deps.receivesContent?.() ?? true);
    if (earlier) target.earlierMessages = earlier;
    // A takeover ends what the dead process left open (wherever it had posted).
    const { pace, logger } = this.deps;
    target.closeInterrupted = (ids, notice) =>
      closeInterruptedMessages({ client: message.client, pace, logger }, ids, notice);
    return target;
  }
}

/** What is kept of a message to answer: ids only, read again through REST by a takeover. */
function keptEvent(message: Message, question: string, where: Plan): KeptDiscordEvent {
  const ids = { id: message.id, channelId: message.channelId, guildId: message.guildId };
  const channelName = where.channelName !== undefined ? { channelName: where.channelName } : {};
  const plan: KeptDiscordEvent['plan'] =
    where.kind === 'in-place'
      ? { kind: 'in-place', ref: where.ref, replyTo: where.replyTo !== undefined, ...channelName }
      : { kind: 'new-thread', guildId: where.guildId, ...channelName };
  return { message: ids, question, plan };
}
