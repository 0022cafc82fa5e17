// How a final answer looks on Discord: the text, a visible notice when something went wrong,
// and numbered sources as `[n] title <url>` (angle brackets: no preview cards), every message
// within Discord's 2,000 characters of content. What does not fit continues in more messages.
import type { FinalContent, Notice, Source } from '../../src/bridge/types.js';
import { unmaskSpoofedLinks, type UnmaskStyle } from '../shared/masked-links.js';

export const DISCORD_MAX_CHARS = 2000;
/** Discord refuses an empty message; this stands in for an answer with no visible text. */
export const EMPTY_PLACEHOLDER = '\u2026';

const MAX_TITLE = 200;

/** Escapes Discord markdown in text that is not ours (titles), so it shows as written. */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\*_~`|>[\]])/g, '\\$1').replace(/\s+/g, ' ');
}

function safeLink(link: string | undefined): string | undefined {
  if (!link || !/^https?:\/\//i.test(link)) return undefined;
  // Characters that would end the <…> early or break the line are percent-encoded.
  return link.replace(/[\s<>]/g, (c) => encodeURIComponent(c));
}

export function formatSourceLine(source: Source, max = DISCORD_MAX_CHARS): string {
  let title = source.title.trim() || source.fileName || 'Source';
  if (title.length > MAX_TITLE) title = `${title.slice(0, MAX_TITLE - 1)}\u2026`;
  const head = `[${source.number}] ${escapeMarkdown(title)}`;
  const link = safeLink(source.link);
  const line = link ? `${head} <${link}>` : head;
  return line.length <= max ? line : head;
}

/** Where the engine's "no chatbot here" notice is shown decides what to do about it. */
export const NOT_CONFIGURED_GUILD =
  'No chatbot is set up for this channel yet. Someone with Manage Server can run ' +
  '`/chatbridge chatbot use <name>` here, or `/chatbridge chatbot default <name>` for the whole server.';
export const NOT_CONFIGURED_DM =
  'No chatbot answers direct messages yet. An admin (a user id listed in CHATBRIDGE_ADMINS) can ' +
  'run `/chatbridge chatbot default <name>` in a DM with the bot, or the operator can set ' +
  'CHATBRIDGE_CHATBOT.';

/**
 * The engine words its not-configured notice for every surface; on Discord it names the slash
 * command, and in a DM (where no server default applies) the two ways that do.
 */
export function discordNotice(notice: Notice, inDm: boolean): Notice {
  if (notice.kind !== 'not_configured') return notice;
  return { ...notice, text: inDm ? NOT_CONFIGURED_DM : NOT_CONFIGURED_GUILD };
}

export function formatNotice(notice: Notice): string {
  return `> \u26a0\ufe0f ${notice.text.replace(/\n+/g, ' ')}`;
}

/** The real address after a spoofing label, in <…> so Discord adds no preview card. */
const unmaskStyle: UnmaskStyle = (label, href) =>
  `${label} (<${href.replace(/[\s<>]/g, encodeURIComponent)}>)`;

/**
 * Answer text as Discord should show it: a masked link whose label reads as another address
 * ("[trusted.example](http://evil.example)") shows the address it really opens. Mentions need
 * nothing here: every message goes with allowed_mentions {parse: []}.
 */
export function safeAnswerText(text: string): string {
  return unmaskSpoofedLinks(text, unmaskStyle);
}

/** Cuts text longer than max at the last newline or space before it (a guard: the renderer splits). */
export function hardSplit(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = rest.lastIndexOf('\n', max);
    if (cut < max / 2) cut = rest.lastIndexOf(' ', max);
    if (cut < max / 2) cut = max;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^[\n ]/, '');
  }
  parts.push(rest);
  return parts;
}

/**
 * The messages a final state takes: the first replaces the streamed message, the others are
 * posted after it. Pieces (notice, sources) are packed greedily, never split inside a line.
 */
export function renderFinal(content: FinalContent, max = DISCORD_MAX_CHARS): string[] {
  const messages = hardSplit(safeAnswerText(content.text).trimEnd(), max);
  const pieces: string[] = [];
  if (content.notice) pieces.push(formatNotice(content.notice));
  if (content.sources.length > 0) {
    const lines = content.sources.map((s) => formatSourceLine(s, max));
    // The header travels with the first source so it never ends a message alone.
    pieces.push(`**Sources**\n${lines[0]!}`, ...lines.slice(1));
  }
  for (const [index, piece] of pieces.entries()) {
    const last = messages[messages.length - 1]!;
    // Paragraph break before a new block, line break between sources.
    const isSourceLine = content.sources.length > 0 && index > (content.notice ? 1 : 0);
    const separator = last.trim() === '' ? '' : isSourceLine ? '\n' : '\n\n';
    const joined = `${last}${separator}${piece}`;
    if (joined.length <= max) messages[messages.length - 1] = joined;
    else messages.push(piece);
  }
  return messages.map((m) => (m.trim() === '' ? EMPTY_PLACEHOLDER : m));
}
