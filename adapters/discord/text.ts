// Turning a Discord message's content into the question sent to the chatbot and into a thread
// name: mention syntax becomes readable names, the bot's own mention disappears.
import type { Message } from 'discord.js';

const THREAD_NAME_MAX = 100;

/** Content with `<@id>`, `<#id>`, `<@&id>` and custom emoji made readable; the bot's mention removed. */
export function readableContent(message: Message, botId: string): string {
  const users = message.mentions.users;
  const roles = message.mentions.roles;
  const channels = message.mentions.channels;
  return message.content
    .replace(/<@!?(\d+)>/g, (_, id: string) => {
      if (id === botId) return '';
      const user = users.get(id);
      const member = message.mentions.members?.get(id);
      return `@${member?.displayName ?? user?.globalName ?? user?.username ?? 'user'}`;
    })
    .replace(/<@&(\d+)>/g, (_, id: string) => `@${roles.get(id)?.name ?? 'role'}`)
    .replace(/<#(\d+)>/g, (_, id: string) => {
      const channel = channels.get(id);
      return `#${channel && 'name' in channel && channel.name ? channel.name : 'channel'}`;
    })
    .replace(/<a?(:\w+:)\d+>/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A thread name from the question: its first line, ≤ 100 characters, cut at a word. */
export function threadNameFrom(question: string, fallback: string): string {
  const firstLine =
    question
      .split('\n')
      .map((line) => line.replace(/[*_~`>|]/g, '').trim())
      .find((line) => line !== '') ?? '';
  const name = firstLine.replace(/\s+/g, ' ');
  const base = name === '' ? fallback : name;
  if (base.length <= THREAD_NAME_MAX) return base;
  const cut = base.slice(0, THREAD_NAME_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > THREAD_NAME_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}\u2026`;
}

/** The name the user goes by where they wrote. */
export function authorName(message: Message): string {
  return message.member?.displayName ?? message.author.globalName ?? message.author.username;
}
