// How answers look in Slack: the text as a markdown block, numbered sources as mrkdwn links,
// notices as a visible context line; and incoming Slack markup turned back into plain words.
import type { Notice, Source } from '../../src/bridge/types.js';
import { escapeMrkdwn, fitEscaped } from './escape.js';
import { BLOCK_KIT, CHAT } from './limits.js';

export { escapeMrkdwn } from './escape.js';

export type SlackBlock = Record<string, unknown>;

const SECTION_LIMIT = BLOCK_KIT.sectionText;

/** A link target that cannot close the `<link|title>` form early. */
function safeLink(link: string): string {
  return link.replace(/[|<> ]/g, (ch) => encodeURIComponent(ch));
}

export function sourceLine(source: Source): string {
  const title = escapeMrkdwn(source.title.replace(/\s+/g, ' ').trim() || 'Untitled');
  const body = source.link ? `<${safeLink(source.link)}|${title}>` : title;
  return `${source.number}. ${body}`;
}

/** "*Sources*" and one numbered line per source, split over sections of at most 3,000 chars. */
export function sourceBlocks(sources: Source[]): SlackBlock[] {
  if (sources.length === 0) return [];
  const sections: string[] = [];
  let current = '*Sources*';
  for (const source of sources) {
    const line = fitEscaped(sourceLine(source), SECTION_LIMIT - 1);
    if (current.length + 1 + line.length > SECTION_LIMIT) {
      sections.push(current);
      current = line;
    } else {
      current += `\n${line}`;
    }
  }
  sections.push(current);
  return [
    { type: 'divider' },
    ...sections.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
  ];
}

export function noticeBlock(notice: Notice): SlackBlock {
  return {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `:warning: _${escapeMrkdwn(notice.text)}_` }],
  };
}

export function markdownBlock(text: string): SlackBlock {
  return { type: 'markdown', text };
}

/** Blocks of a finished message: its text, then sources, then the notice. */
export function finalBlocks(text: string, sources: Source[], notice?: Notice): SlackBlock[] {
  return [
    ...(text.trim() === '' ? [] : [markdownBlock(text)]),
    ...sourceBlocks(sources),
    ...(notice ? [noticeBlock(notice)] : []),
  ];
}

/**
 * The `text` Slack shows in notifications when a message has blocks. `text` is the answer as
 * already escaped for markdown_text (escape.ts); a notice is ours to escape.
 */
export function fallbackText(text: string, notice?: Notice): string {
  const base = text.trim() === '' ? escapeMrkdwn(notice?.text ?? '…') : text;
  return fitEscaped(base, CHAT.fallbackText);
}

export function unescapeMrkdwn(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * A user's Slack message as plain words for the chatbot: the bot's own mention removed, other
 * mentions, channels and links spelled out, entities decoded.
 */
export function slackToPlainText(text: string, botUserId?: string): string {
  const out = text.replace(/<([^<>]+)>/g, (_whole, inner: string) => {
    const [target = '', label] = inner.split('|', 2);
    if (target.startsWith('@')) {
      if (botUserId && target.slice(1) === botUserId) return '';
      return `@${label ?? target.slice(1)}`;
    }
    if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
    if (target.startsWith('!')) {
      const special = target.slice(1).split('^')[0] ?? '';
      return label ?? `@${special}`;
    }
    const url = unescapeMrkdwn(target);
    return label && label !== target ? `${unescapeMrkdwn(label)} (${url})` : url;
  });
  return unescapeMrkdwn(out)
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** Whether a message's text mentions the given user. */
export function mentions(text: string | undefined, userId: string | undefined): boolean {
  if (!text || !userId) return false;
  return text.includes(`<@${userId}>`) || text.includes(`<@${userId}|`);
}
