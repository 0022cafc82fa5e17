// Inline Markdown, as marked's lexer reads it, written back as what a chat can show: web
// links kept, links to relative paths or anchors reduced to their words (they lead nowhere
// outside the document), images and badges dropped, HTML tags removed, reference links
// resolved, and escapes such as `\.` written as the character they protect.
import { decodeHTML } from 'entities';
import { Lexer, type Token, type TokensList } from 'marked';

type Links = TokensList['links'];

const WEB = /^(?:https?:|mailto:)/i;
/** Escapes kept as written: without the backslash these would start Markdown again. */
const SIGNIFICANT = new Set(['*', '_', '`', '[', ']', '~', '<', '>', '|', '\\']);

/** The inline tokens of one line or paragraph; `links` resolves reference links. */
export function inlineTokens(text: string, links?: Links): Token[] {
  const lexer = new Lexer({ gfm: true });
  if (links !== undefined) Object.assign(lexer.tokens.links, links);
  return lexer.inlineTokens(text);
}

/** How a link is written: from its words (already written) and where it points. */
type LinkWriter = (words: string, href: string) => string;

/** A chat's link: web addresses kept, relative paths and anchors reduced to their words. */
const chatLink: LinkWriter = (words, href) => {
  if (words === '') return ''; // a badge: an image inside a link
  if (!WEB.test(href)) return words;
  return words === href ? href : `[${words}](${href})`;
};

/** Inline tokens written as chat Markdown (see the note at the top). */
export function chatInline(tokens: readonly Token[], link: LinkWriter = chatLink): string {
  let out = '';
  for (const token of tokens) out += chatToken(token, link);
  return out;
}

/**
 * What a line of chat Markdown says, without where its links point: a link is its words, a
 * bare address nothing. The answer writer weighs a sentence by these words only (an address
 * that holds "npm-packages" does not make a sentence about packages).
 */
export function spokenInline(text: string): string {
  return chatInline(inlineTokens(text), (words, href) => (words === href ? ' ' : words));
}

function chatToken(token: Token, link: LinkWriter): string {
  const inner = (tokens: Token[] | undefined) => chatInline(tokens ?? [], link);
  switch (token.type) {
    case 'text':
      return 'tokens' in token && token.tokens
        ? inner(token.tokens)
        : decodeText(String(token.text));
    case 'escape':
      return SIGNIFICANT.has(String(token.text)) ? token.raw : String(token.text);
    case 'strong':
      return wrap('**', inner(token.tokens));
    case 'em':
      return wrap('_', inner(token.tokens));
    case 'del':
      return wrap('~~', inner(token.tokens));
    case 'codespan':
      return token.raw;
    case 'br':
      return '\n';
    case 'image':
      return '';
    case 'html':
      return /^<br\s*\/?>$/i.test(token.raw.trim()) ? ' ' : '';
    case 'link':
      return link(inner(token.tokens).trim(), String(token.href));
    default:
      return token.raw;
  }
}

/** Entities in text (&amp;, &#39; …) as the characters they stand for; &nbsp; (spacing in a
 * README's navigation line) as a plain space. */
const decodeText = (text: string) =>
  text.includes('&') ? decodeHTML(text.replace(/&nbsp;/gi, ' ')) : text;

const wrap = (mark: string, inner: string) =>
  inner.trim() === '' ? inner : `${mark}${inner}${mark}`;

/** A text's inline Markdown made chat-ready, whitespace runs inside lines folded. */
export function chatText(text: string, links?: Links): string {
  return chatInline(inlineTokens(text, links))
    .replace(/[ \t]{2,}/g, ' ') // runs become single blanks first: the next trim is linear
    .replace(/[ \t]$/gm, '')
    .trim();
}
