// Discord's side of durable intake: what is kept of a message to answer (enough for any process
// with the bot's token to answer it after the one that took it died: REST is not bound to the
// gateway shard that saw it), how that process finds the message again, and how it closes the
// messages the dead one left half-written. Every call goes through the client's REST, paced by
// the shared rate budget like every other.
import {
  DiscordAPIError,
  Routes,
  type AnyThreadChannel,
  type Client,
  type Message,
} from 'discord.js';
import type { Logger } from 'pino';
import type { ThreadRef } from '../../src/bridge/types.js';
import { NO_MENTIONS } from './client.js';
import { DISCORD_MAX_CHARS, formatNotice } from './format.js';
import type { ChannelPace } from './pace.js';
import { rateLimitDelay } from './reply.js';

export { openedId } from './reply.js';

/** What the intake queue keeps of a Discord message the bot answers. */
export interface KeptDiscordEvent {
  /** The message asked: its channel (a text channel, a thread, a DM) and its server. */
  message: { id: string; channelId: string; guildId: string | null };
  /** The question as read when it arrived (the message may be edited since). */
  question: string;
  /** Where it was decided to answer it (plan.ts), as ids. */
  plan:
    | { kind: 'in-place'; ref: ThreadRef; replyTo: boolean; channelName?: string }
    | { kind: 'new-thread'; guildId: string; channelName?: string };
}

/**
 * The kept message, read again through REST. A server whose shard this process does not hold
 * is not in its cache: it is read first, so its channels resolve like any other. Undefined
 * when the message or its channel is gone.
 */
export async function fetchKeptMessage(
  client: Client,
  kept: KeptDiscordEvent['message'],
): Promise<Message | undefined> {
  try {
    if (kept.guildId !== null && !client.guilds.cache.has(kept.guildId)) {
      await client.guilds.fetch({ guild: kept.guildId, withCounts: false });
    }
    const channel = await client.channels.fetch(kept.channelId);
    if (!channel?.isTextBased()) return undefined;
    return await channel.messages.fetch(kept.id);
  } catch (error) {
    if (isUnknown(error)) return undefined;
    throw error;
  }
}

/** The thread a dead process opened on the message (a thread on a message has its id). */
export async function threadOn(message: Message): Promise<AnyThreadChannel | undefined> {
  if (message.thread) return message.thread;
  try {
    const channel = await message.client.channels.fetch(message.id);
    return channel?.isThread() ? channel : undefined;
  } catch (error) {
    if (isUnknown(error)) return undefined;
    throw error;
  }
}

const UNKNOWN = new Set([10003, 10004, 10008]); // channel, guild, message

function isUnknown(error: unknown): boolean {
  return error instanceof DiscordAPIError && UNKNOWN.has(Number(error.code));
}

interface RawMessage {
  content?: string;
}

export interface CloseDeps {
  client: Client;
  pace: ChannelPace;
  logger: Logger;
  /** Most tries of one edit while Discord answers 429. */
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Ends each message a dead process left open (ids as openedId() wrote them) with the notice,
 * as every notice shows on Discord; what it showed stays, cut to fit. A deleted message is
 * skipped. Rejects on other failures (the engine logs them).
 */
export async function closeInterruptedMessages(
  deps: CloseDeps,
  ids: readonly string[],
  notice: string,
): Promise<void> {
  const tail = formatNotice({ kind: 'cut_off', text: notice });
  for (const id of ids) {
    const [channelId, messageId] = id.split('/');
    if (!channelId || !messageId) continue;
    const route = Routes.channelMessage(channelId, messageId);
    const shown = await retried(deps, channelId, () => deps.client.rest.get(route)).catch(
      (error: unknown) => {
        if (isUnknown(error)) return undefined;
        throw error;
      },
    );
    if (shown === undefined) continue;
    const text = ((shown as RawMessage).content ?? '').trimEnd();
    const room = DISCORD_MAX_CHARS - tail.length - 2;
    const kept = text.length > room ? `${text.slice(0, room - 1)}\u2026` : text;
    const content = kept === '' ? tail : `${kept}\n\n${tail}`;
    await retried(deps, channelId, () =>
      deps.client.rest.patch(route, { body: { content, allowed_mentions: NO_MENTIONS } }),
    ).catch((error: unknown) => {
      if (!isUnknown(error)) throw error;
    });
  }
}

/** Runs a REST call, waiting out Discord's 429s (the channel's pace widened meanwhile). */
async function retried<T>(deps: CloseDeps, channelId: string, call: () => Promise<T>): Promise<T> {
  const sleep = deps.sleep ?? defaultSleep;
  const attempts = deps.attempts ?? 10;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const delay = rateLimitDelay(error);
      if (delay === undefined || attempt >= attempts) throw error;
      deps.pace.limited(channelId, delay);
      deps.logger.debug({ channel: channelId, delay }, 'discord: closing waits for a 429');
      await sleep(delay);
    }
  }
}
