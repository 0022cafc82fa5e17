// The messages before a question on Discord, for the engine's thread context: in a thread, the
// thread's earlier messages (and the channel message it was started on); in a text channel, the
// chain of messages the question replies to. Readable only with the Message Content intent:
// without it Discord sends other people's messages with empty text, so nothing is read.
import { ChannelType, DiscordAPIError, type Message } from 'discord.js';
import type { EarlierMessage } from '../../src/bridge/types.js';
import { authorName, readableContent } from './text.js';

/** Discord returns at most this many messages per fetch. */
const DISCORD_PAGE = 100;
const UNKNOWN_MESSAGE = 10008;

export type EarlierReader = (limit: number) => Promise<EarlierMessage[]>;

function earlier(message: Message, botId: string): EarlierMessage {
  const fromAssistant = message.author.id === botId;
  return {
    author: fromAssistant ? 'assistant' : authorName(message),
    text: readableContent(message, botId),
    fromAssistant,
  };
}

function byId(a: Message, b: Message): number {
  return BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0;
}

/** A message that no longer exists ends a chain; other failures are failures. */
function gone(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === UNKNOWN_MESSAGE;
}

/** The thread's messages before the question, oldest first, with its starter message. */
async function threadBefore(question: Message, botId: string, limit: number) {
  const thread = question.channel;
  if (!thread.isThread()) return [];
  const fetched = await thread.messages.fetch({
    before: question.id,
    limit: Math.min(limit, DISCORD_PAGE),
  });
  const messages = new Map([...fetched.values()].map((m) => [m.id, m]));
  // The whole thread was read: the message it was started on (in the parent channel) leads it.
  if (fetched.size < limit) {
    const starter = await thread.fetchStarterMessage().catch((error: unknown) => {
      if (gone(error)) return null; // a thread not started on a message
      throw error;
    });
    if (starter && starter.id !== question.id) messages.set(starter.id, starter);
  }
  return [...messages.values()]
    .filter((m) => !m.system)
    .sort(byId)
    .slice(-limit)
    .map((m) => earlier(m, botId));
}

/** The messages the question replies to, one reference after another, oldest first. */
async function replyChain(question: Message, botId: string, limit: number) {
  const chain: Message[] = [];
  let current = question;
  while (chain.length < limit && current.reference?.messageId !== undefined) {
    if (current.reference.channelId !== question.channelId) break;
    let parent: Message;
    try {
      parent = await current.fetchReference();
    } catch (error) {
      if (gone(error)) break;
      throw error;
    }
    chain.unshift(parent);
    current = parent;
  }
  return chain.map((m) => earlier(m, botId));
}

/**
 * How to read what came before this question, or undefined where nothing can come before it: a
 * DM (the bot's own conversation), a forum post's first message, a channel message that replies
 * to nothing, or a connection without the Message Content intent.
 */
export function earlierReader(
  question: Message,
  botId: string,
  receivesContent: boolean,
): EarlierReader | undefined {
  if (!receivesContent || question.guildId === null) return undefined;
  const channel = question.channel;
  if (channel.type === ChannelType.DM) return undefined;
  if (channel.isThread()) {
    if (question.id === channel.id) return undefined;
    return (limit) => threadBefore(question, botId, limit);
  }
  if (question.reference?.messageId === undefined) return undefined;
  return (limit) => replyChain(question, botId, limit);
}
