// A source's text read as Markdown by marked's block lexer (plain text reads as paragraphs)
// and written back in one canonical form before it is cut into chunks: setext headings as
// `#` headings, indented code as fenced code (a fence long enough for what it holds), fences
// always closed, reference links resolved against the document's definitions (which a chunk
// would not carry), definitions, comments, tags and badge lines dropped. Chunks then hold
// nothing a later reading of one chunk alone could misread. Only the block lexer runs over the
// whole text; a paragraph is read inline only when it holds something to clean.
import { Lexer, type Token, type TokensList } from 'marked';
import { chatText } from './markdown-inline.js';

export type SourceBlockKind = 'heading' | 'paragraph' | 'code' | 'list' | 'table' | 'quote';

export interface SourceBlock {
  kind: SourceBlockKind;
  /** The block in canonical Markdown, trimmed. */
  text: string;
  /** Headings: the heading's words. */
  heading?: string;
}

type Links = TokensList['links'];

/** Inline content worth a full inline reading: images, tags, escapes. */
const NEEDS_INLINE = /!\[|<[a-z/!]|\\[!-/:-@[-`{-~]/i;
/** `[words][label]`, `[label][]` and `[label]` not followed by a link target (nor inside one). */
const REFERENCE = /(?<![\]!\\])\[([^\]\n]+)\](?:\s?\[([^\]\n]*)\])?(?![(:[])/g;

/** The blocks of a text, in order, in canonical Markdown (see the note at the top). */
export function sourceBlocks(text: string): SourceBlock[] {
  const lexer = new Lexer({ gfm: true });
  const normal = text.replace(/\r\n?/g, '\n');
  let tokens: Token[];
  try {
    tokens = lexer.blockTokens(normal, []);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return plainParagraphs(normal); // nesting deeper than marked's recursion can go
  }
  const links = lexer.tokens.links;
  const resolve = hasLinks(links) ? inlineLinks(links) : (s: string) => s;
  const blocks: SourceBlock[] = [];
  for (const token of tokens) {
    const block = blockOf(token, resolve, links);
    if (block !== undefined && block.text !== '') blocks.push(block);
  }
  return blocks;
}

function blockOf(
  token: Token,
  resolve: (text: string) => string,
  links: Links,
): SourceBlock | undefined {
  switch (token.type) {
    case 'heading': {
      const words = clean(resolve(String(token.text)), links).replace(/\s+/g, ' ');
      if (words === '') return undefined;
      return {
        kind: 'heading',
        text: `${'#'.repeat(token.depth as number)} ${words}`,
        heading: words,
      };
    }
    case 'paragraph':
    case 'text': {
      const raw = token.raw.trim();
      // With definitions, marked's inline reading resolves the references itself.
      return {
        kind: 'paragraph',
        text: hasLinks(links) ? chatText(raw, links) : clean(raw, links),
      };
    }
    case 'code':
      return { kind: 'code', text: fenced(String(token.text), String(token.lang ?? '')) };
    case 'list':
      return { kind: 'list', text: resolve(token.raw.trim()) };
    case 'table':
      return { kind: 'table', text: resolve(token.raw.trim()) };
    case 'blockquote':
      return { kind: 'quote', text: resolve(token.raw.trim()) };
    case 'html':
      return htmlHeading(token.raw) ?? { kind: 'paragraph', text: withoutTags(token.raw) };
    default:
      return undefined; // space, hr, def
  }
}

const hasLinks = (links: Links) => Object.keys(links).length > 0;

const HTML_HEADING_OPEN = /^<h([1-6])\b[^<>]*>/i;

/**
 * An HTML block that is one heading element (a README's `<h1 align="center">Name</h1>`) is a
 * heading of its level, as in Markdown: read as text, it was a chunk of one word before the
 * first section, and the sections under it lost it from their heading path.
 */
function htmlHeading(raw: string): SourceBlock | undefined {
  const html = raw.trim();
  const open = HTML_HEADING_OPEN.exec(html);
  if (open === null) return undefined;
  const depth = Number(open[1]);
  const close = html.lastIndexOf('</');
  if (!new RegExp(`^</h${depth}\\s*>$`, 'i').test(html.slice(close))) return undefined;
  const inner = html.slice(open[0].length, close);
  if (/<h[1-6]\b/i.test(inner)) return undefined; // two headings in one block: read as text
  const words = withoutTags(inner).replace(/\s+/g, ' ').trim();
  if (words === '') return undefined;
  return { kind: 'heading', text: `${'#'.repeat(depth)} ${words}`, heading: words };
}

function clean(text: string, links: Links): string {
  return NEEDS_INLINE.test(text) ? chatText(text, links) : text;
}

/** Code fenced with more backticks than any run inside it (at least three). */
export function fenced(body: string, lang = ''): string {
  let longest = 0;
  for (const run of body.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang.trim().split(/\s/)[0] ?? ''}\n${body.replace(/\n+$/, '')}\n${fence}`;
}

/** Reference links written inline, with the target their definition gives. */
function inlineLinks(links: Links): (text: string) => string {
  return (text) =>
    text.replace(REFERENCE, (whole, words: string, label: string | undefined) => {
      const key = (label === undefined || label === '' ? words : label)
        .trim()
        .replace(/\s+/g, ' ')
        .toLowerCase();
      const target = links[key];
      return target === undefined ? whole : `[${words}](${target.href})`;
    });
}

const INLINE_TAG = /<\/?(?:a|b|i|em|strong|code|span|sub|sup|kbd|mark|small|img)\b[^<>]*>/gi;

/** An HTML block's words: comments and tags removed (linear: no backtracking over the text). */
function withoutTags(html: string): string {
  let text = '';
  let at = 0;
  for (;;) {
    const open = html.indexOf('<!--', at);
    if (open < 0) break;
    text += html.slice(at, open);
    const close = html.indexOf('-->', open + 4);
    at = close < 0 ? html.length : close + 3;
  }
  text += html.slice(at);
  return text
    .replace(INLINE_TAG, '') // <a>, <b>, <code>: their words run on with the text around them
    .replace(/<[^<>]*>/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * The text as plain paragraphs (blank lines between them): the reading of last resort for a
 * text nested too deeply for the lexer (thousands of `>` or list levels). Nothing is lost.
 */
export function plainParagraphs(text: string): SourceBlock[] {
  return text
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => ({ kind: 'paragraph', text: paragraph }));
}
