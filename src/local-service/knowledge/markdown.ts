// Markdown (and plain text, which reads as Markdown paragraphs) cut into blocks: headings,
// paragraphs, list items, table rows and fenced code. The chunker keeps these whole, and
// the answer writer picks among them, so a code block is never glued into a sentence and a
// table row is never read as prose. marked reads the Markdown; markdown-inline.ts writes its
// inline parts back as a chat shows them.
import { Lexer, type Token, type Tokens } from 'marked';
import { chatInline } from './markdown-inline.js';
import { fenced, plainParagraphs } from './markdown-source.js';

export type BlockKind = 'heading' | 'paragraph' | 'item' | 'row' | 'code';

export interface Block {
  kind: BlockKind;
  /**
   * heading: its words; paragraph: its lines (soft wraps kept as '\n'); item: its words
   * without the bullet; row: the cells joined with ' | '; code: the whole fence, raw.
   */
  text: string;
  /** Table rows: the cells, and the header row's cells when the table has one. */
  cells?: string[];
  header?: string[];
  /** List items: the bullet or number, to write the list back. */
  bullet?: string;
  /** Headings: 1 for "#" … 6 for "######" (a setext heading: 1 or 2). */
  depth?: number;
}

/** The blocks of a chunk's text, in order, as marked reads it, inline Markdown chat-ready. */
export function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  try {
    for (const token of new Lexer({ gfm: true }).lex(text)) pushBlocks(token, blocks);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // Nested deeper than the lexer's recursion goes: read as plain paragraphs.
    return plainParagraphs(text).map(({ text: words }) => ({ kind: 'paragraph', text: words }));
  }
  return blocks;
}

const inline = (tokens: Token[] | undefined) =>
  chatInline(tokens ?? [])
    .replace(/[ \t]{2,}/g, ' ')
    .trim();

/** A GitHub alert's marker ("> [!NOTE]"), written as the label a chat shows. */
const ALERT = /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i;
const alertLabel = (kind: string) => `${kind[0]!.toUpperCase()}${kind.slice(1).toLowerCase()}`;

function pushBlocks(token: Token, blocks: Block[]): void {
  switch (token.type) {
    case 'heading': {
      const words = inline(token.tokens).replace(/\s+/g, ' ');
      if (words !== '') blocks.push({ kind: 'heading', text: words, depth: token.depth });
      return;
    }
    case 'paragraph':
    case 'text': {
      const words = inline(token.tokens).replace(
        ALERT,
        (_, kind: string) => `**${alertLabel(kind)}:** `,
      );
      if (words !== '') blocks.push({ kind: 'paragraph', text: words });
      return;
    }
    case 'code':
      blocks.push({ kind: 'code', text: fenced(String(token.text), String(token.lang ?? '')) });
      return;
    case 'list':
      pushItems(token as Tokens.List, blocks);
      return;
    case 'table':
      pushRows(token as Tokens.Table, blocks);
      return;
    case 'blockquote':
      for (const inner of token.tokens ?? []) pushBlocks(inner, blocks);
      return;
    case 'html': {
      const words = inline([token]);
      if (words !== '') blocks.push({ kind: 'paragraph', text: words });
      return;
    }
    default:
      return; // space, hr, def
  }
}

/** A list's items (nested lists flattened after their item), each item's words on one line. */
function pushItems(list: Tokens.List, blocks: Block[]): void {
  const start = typeof list.start === 'number' ? list.start : 1;
  list.items.forEach((item, i) => {
    const words: string[] = [];
    const after: Block[] = [];
    for (const inner of item.tokens) {
      if (inner.type === 'text' || inner.type === 'paragraph') words.push(inline(inner.tokens));
      else pushBlocks(inner, after);
    }
    const text = words.join(' ').replace(/\s+/g, ' ').trim();
    const bullet = list.ordered ? `${start + i}.` : '-';
    if (text !== '') blocks.push({ kind: 'item', text, bullet });
    blocks.push(...after);
  });
}

function pushRows(table: Tokens.Table, blocks: Block[]): void {
  const header = table.header.map((cell) => inline(cell.tokens));
  const hasHeader = header.some((cell) => cell !== '');
  for (const row of table.rows) {
    const cells = row.map((cell) => inline(cell.tokens));
    if (cells.every((cell) => cell === '')) continue;
    blocks.push({ kind: 'row', text: cells.join(' | '), cells, ...(hasHeader && { header }) });
  }
}
