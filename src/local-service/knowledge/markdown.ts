// Markdown (and plain text, which reads as Markdown paragraphs) cut into blocks: headings,
// paragraphs, list items, table rows and fenced code. The chunker keeps these whole, and
// the answer writer picks among them, so a code block is never glued into a sentence and a
// table row is never read as prose.

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
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ATX = /^\s{0,3}(#{1,6})(?:\s+|$)(.*?)(?:\s+#+)?\s*$/;
const ITEM = /^\s*([-*+•]|\d{1,9}[.)])\s+(.*)$/;
const SETEXT = /^\s{0,3}(=+|-+)\s*$/;
const DELIMITER_ROW = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const COMMENT = /^\s*<!--.*-->\s*$/;

function cellsOf(line: string): string[] {
  const cells = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
  return cells;
}

const isTableLine = (line: string) => /^\s*\|.*\|\s*$/.test(line);

/** The blocks of a text, in order. */
export function blocksOf(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let open: Block | undefined; // a paragraph or list item still taking lines
  let header: string[] | undefined;
  const close = () => {
    if (open !== undefined) blocks.push(open);
    open = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      close();
      const marker = fence[1]!;
      const body = [line];
      while (++i < lines.length) {
        body.push(lines[i]!);
        if (lines[i]!.trim().startsWith(marker[0]!.repeat(marker.length))) break;
      }
      blocks.push({ kind: 'code', text: body.join('\n').trimEnd() });
      continue;
    }
    if (line.trim() === '' || COMMENT.test(line)) {
      close();
      if (line.trim() === '') header = undefined;
      continue;
    }
    if (isTableLine(line)) {
      close();
      if (DELIMITER_ROW.test(line)) {
        const previous = blocks.at(-1);
        if (previous?.kind === 'row' && header === undefined) {
          blocks.pop();
          header = previous.cells;
        }
        continue;
      }
      const cells = cellsOf(line);
      blocks.push({ kind: 'row', text: cells.join(' | '), cells, ...(header && { header }) });
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      close();
      blocks.push({ kind: 'heading', text: atx[2]!.trim() });
      continue;
    }
    if (SETEXT.test(line) && open?.kind === 'paragraph' && !open.text.includes('\n')) {
      blocks.push({ kind: 'heading', text: open.text.trim() });
      open = undefined;
      continue;
    }
    const item = ITEM.exec(line);
    if (item && !/^\s*[-*_](\s*[-*_]){2,}\s*$/.test(line)) {
      close();
      open = { kind: 'item', text: item[2]!.trim(), bullet: item[1]! };
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      close(); // a thematic break
      continue;
    }
    const words = line.replace(/^\s*>\s?/, '').trim();
    if (open === undefined) open = { kind: 'paragraph', text: words };
    else open.text += open.kind === 'item' ? ` ${words}` : `\n${words}`;
  }
  close();
  return blocks;
}

/**
 * The paragraphs of a text as written (raw lines), split at blank lines but never inside a
 * fenced code block, so a chunk boundary cannot fall inside one.
 */
export function rawParagraphs(text: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  const flush = () => {
    const paragraph = current
      .join('\n')
      // The lookbehind starts a match only where a run of blanks starts: without it a long run
      // inside a line is rescanned from each of its positions (minutes for a padded table).
      .replace(/(?<![ \t])[ \t]+$/gm, '')
      .replace(/^\n+|\n+$/g, '');
    if (paragraph.trim() !== '') paragraphs.push(paragraph);
    current = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const marker = FENCE.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      flush(); // a fence is its own paragraph
      fence = marker;
      current.push(line);
      continue;
    }
    if (fence !== undefined) {
      current.push(line);
      if (line.trim().startsWith(fence[0]!.repeat(fence.length)) && current.length > 1) {
        fence = undefined;
        flush();
      }
      continue;
    }
    if (line.trim() === '') flush();
    else current.push(line);
  }
  flush();
  return paragraphs;
}

/** The heading text of a paragraph that is a Markdown heading, else undefined. */
export function headingOf(paragraph: string): string | undefined {
  if (paragraph.includes('\n')) return undefined;
  const atx = ATX.exec(paragraph);
  return atx ? atx[2]!.trim() : undefined;
}

/**
 * Inline Markdown made safe to repeat outside its document: links to relative paths (which
 * lead nowhere in a chat) keep only their words, images keep their alt text, HTML tags go.
 */
export function portableInline(text: string): string {
  const linked = text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\((?![a-z][a-z0-9+.-]*:|#)[^)]*\)/gi, '$1');
  // Code spans are kept as written: only the text between them loses its tags.
  return linked
    .split(/(`+[^`]*`+)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/<\/?[a-z][^>]*>/gi, (tag) => (/^<(?:https?|mailto):/i.test(tag) ? tag : ''))
            .replace(/[ \t]{2,}/g, ' '),
    )
    .join('')
    .trim();
}
