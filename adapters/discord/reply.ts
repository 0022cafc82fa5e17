// A Discord ReplyTarget: post-and-edit through the engine's renderer. The renderer paces the
// edits and keeps one in flight; this file turns Discord's answers into what the renderer
// understands (429 → SurfaceRateLimitError), widens the channel's pace when Discord complains,
// and makes the final edit land whatever happens.
import {
  DiscordAPIError,
  RateLimitError,
  type Message,
  type MessageCreateOptions,
} from 'discord.js';
import type { Logger } from 'pino';
import {
  SurfaceRateLimitError,
  type FinalContent,
  type ReplyMessage,
  type ReplyTarget,
  type SurfaceLimits,
} from '../../src/bridge/types.js';
import { NO_MENTIONS, NO_MENTIONS_REPLY } from './client.js';
import {
  discordNotice,
  DISCORD_MAX_CHARS,
  EMPTY_PLACEHOLDER,
  hardSplit,
  renderFinal,
  safeAnswerText,
} from './format.js';
import { feedbackRow } from './feedback.js';
import type { ChannelPace } from './pace.js';

/** The parts of a channel the reply uses (a thread, a DM, a text channel). */
export interface ReplyChannel {
  readonly id: string;
  send(options: MessageCreateOptions): Promise<Message>;
  sendTyping(): Promise<void>;
}

export interface DiscordReplyOptions {
  channel: ReplyChannel;
  /** Answer as replies to this message (when no thread could be made). */
  replyTo?: Pick<Message, 'reply'>;
  /**
   * Told of every message the answer posts (so replies to it can be recognised); awaited before
   * the answer goes on, so a reply to a message already finds it. Should not throw.
   */
  onPosted?: (message: Message) => void | Promise<void>;
  pace: ChannelPace;
  logger: Logger;
  /** A direct message: notices about setup name what works in DMs. */
  inDm?: boolean;
  /** Typing lasts ~10 s on Discord; the engine refreshes it this often. */
  workingRefreshMs?: number;
  /** Most attempts of the final edit while Discord keeps answering 429. */
  finishAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
}

const UNKNOWN_MESSAGE = 10008;

type Components = NonNullable<MessageCreateOptions['components']>;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The retry delay of a 429 that discord.js surfaced, or undefined for other errors. */
export function rateLimitDelay(error: unknown): number | undefined {
  if (error instanceof RateLimitError) return Math.max(1, error.retryAfter);
  if (error instanceof DiscordAPIError && error.status === 429) {
    const body = error.rawError as { retry_after?: unknown };
    return typeof body.retry_after === 'number' ? Math.ceil(body.retry_after * 1000) : 1000;
  }
  return undefined;
}

/** A message this surface opened, as recorded with the kept event: `channel/message`. */
export function openedId(message: Pick<Message, 'channelId' | 'id'>): string {
  return `${message.channelId}/${message.id}`;
}

function visible(text: string): string {
  const first = hardSplit(safeAnswerText(text), DISCORD_MAX_CHARS)[0] ?? '';
  return first.trim() === '' ? EMPTY_PLACEHOLDER : first;
}

function replyLimits(options: DiscordReplyOptions): SurfaceLimits {
  const { channel, pace } = options;
  return {
    maxChars: DISCORD_MAX_CHARS,
    // 👍/👎 buttons under every complete answer (feedback.ts).
    feedback: true,
    // Read before every edit: the channel's pace right now (busy channel, recent 429s).
    get minUpdateMs() {
      return pace.intervalMs(channel.id);
    },
    workingRefreshMs: options.workingRefreshMs ?? 8000,
  };
}

/** Posts one message of the answer (a reply, or in the channel) and tells onPosted. */
async function postAnswerMessage(
  options: DiscordReplyOptions,
  content: string,
  components?: Components,
): Promise<Message> {
  const extra = components ? { components } : {};
  const posted = await (options.replyTo
    ? options.replyTo.reply({ content, allowedMentions: NO_MENTIONS_REPLY, ...extra })
    : options.channel.send({ content, allowedMentions: NO_MENTIONS, ...extra }));
  await options.onPosted?.(posted);
  return posted;
}

/** Edits until Discord accepts it; a deleted message is posted anew. */
async function landEdit(
  options: DiscordReplyOptions,
  message: Message,
  content: string,
  components?: Components,
): Promise<Message> {
  const { channel, pace, logger } = options;
  const sleep = options.sleep ?? defaultSleep;
  const attempts = options.finishAttempts ?? 30;
  for (let attempt = 1; ; attempt++) {
    try {
      return await message.edit({
        content,
        allowedMentions: NO_MENTIONS,
        ...(components ? { components } : {}),
      });
    } catch (error) {
      const delay = rateLimitDelay(error);
      if (delay !== undefined && attempt < attempts) {
        pace.limited(channel.id, delay);
        await sleep(delay);
        continue;
      }
      if (error instanceof DiscordAPIError && error.code === UNKNOWN_MESSAGE) {
        logger.warn({ channel: channel.id }, 'discord: answer message was deleted; posting anew');
        return postAnswerMessage(options, content, components);
      }
      throw error;
    }
  }
}

export function createDiscordReplyTarget(options: DiscordReplyOptions): ReplyTarget {
  const { channel, pace, logger } = options;
  const limits = replyLimits(options);
  const post = (content: string, components?: Components) =>
    postAnswerMessage(options, content, components);

  return {
    limits,
    async showWorking() {
      try {
        await channel.sendTyping();
      } catch (error) {
        // Typing is a courtesy: a 429 or a missing permission must not stop the answer.
        logger.debug({ err: error, channel: channel.id }, 'discord: typing not shown');
      }
    },
    async stopWorking() {
      // Discord clears typing by itself when a message arrives or after ~10 s.
    },
    async openMessage(text: string): Promise<ReplyMessage> {
      const release = pace.open(channel.id);
      let message: Message;
      try {
        message = await post(visible(text));
      } catch (error) {
        release();
        const delay = rateLimitDelay(error);
        if (delay !== undefined) throw new SurfaceRateLimitError(delay);
        throw error;
      }
      let shown = visible(text);
      return {
        // Kept with the event: a process taking over finds the message wherever it was posted.
        id: openedId(message),
        async update(next: string) {
          const content = visible(next);
          if (content === shown) return;
          try {
            message = await message.edit({ content, allowedMentions: NO_MENTIONS });
            shown = content;
          } catch (error) {
            const delay = rateLimitDelay(error);
            if (delay === undefined) throw error;
            pace.limited(channel.id, delay);
            throw new SurfaceRateLimitError(delay);
          }
        },
        async finish(content: FinalContent) {
          try {
            const notice = content.notice && discordNotice(content.notice, options.inDm ?? false);
            const [first, ...more] = renderFinal({ ...content, notice });
            // The buttons go on the answer's last message, whichever that is.
            const row = content.feedback && feedbackRow(content.feedback.answerId);
            const buttons = row ? [row] : undefined;
            const last = more.length === 0 ? buttons : undefined;
            if (first !== undefined && (first !== shown || last)) {
              message = await landEdit(options, message, first, last);
            }
            for (const [i, extra] of more.entries()) {
              message = await post(extra, i === more.length - 1 ? buttons : undefined);
            }
          } finally {
            release();
          }
        },
      };
    },
  };
}
