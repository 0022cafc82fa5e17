// Cutting a source's text into chunks of about CHUNK_TOKENS tokens for retrieval.
//
// Tokens are estimated, not counted with a model's tokenizer: one token per 4 characters
// (close for English and code with GPT-style tokenizers), and one per character for CJK
// scripts, which tokenize about that densely. The same estimate fills DataSource.tokens.
//
// Chunks end on paragraph boundaries where they can, then on sentence boundaries, then on
// whitespace; never inside a word, except a single "word" longer than a whole chunk (a
// base64 blob, say), which is cut at the chunk size. The text is read as Markdown by marked
// (markdown-source.ts): a code block is one block, blank lines and all, and one too long for
// a chunk is cut between lines into pieces fenced anew. A heading is kept with the section it introduces: it is glued to the
// next paragraph and, when the current chunk is already half full, starts a new chunk. A
// paragraph ending with ":" is glued to what it introduces (a code block, a list) the same way.
import { type SourceBlock, fenced, sourceBlocks } from './markdown-source.js';

export const CHUNK_TOKENS = 300;

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/** Estimated tokens of a text (see the note at the top of this file). */
export function countTokens(text: string): number {
  if (text === '') return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil((text.length - cjk) / 4) + cjk;
}

/** A chunk and the headings it holds (in order), for the section index. */
export interface CutChunk {
  text: string;
  headings: string[];
  /** Whether the chunk opens with a heading (else it sits under the heading before it). */
  opensWithHeading: boolean;
}

interface Unit {
  blocks: SourceBlock[];
  text: string;
  tokens: number;
  /** Starts with a heading: prefers to open a new chunk. */
  section: boolean;
}

/** Plain text (a PDF's, say) has no `#`: a short line without an ending reads as a heading. */
function looksLikeHeading(block: SourceBlock): boolean {
  if (block.kind === 'heading') return true;
  if (block.kind !== 'paragraph' || block.text.includes('\n')) return false;
  if (/^\s*(?:[-*•+]|\d{1,3}[.)])\s/.test(block.text)) return false;
  return block.text.length <= 80 && !/[.!?:;,]["'”’)\]]*$/.test(block.text);
}

const introduces = (block: SourceBlock) => block.kind === 'paragraph' && /:\s*$/.test(block.text);

/** Blocks, with each run of headings (and lead-ins ending in ":") glued to the next one. */
function unitsOf(blocks: SourceBlock[]): Unit[] {
  const units: Unit[] = [];
  let leading: SourceBlock[] = [];
  let section = false;
  const push = (glued: SourceBlock[]) => {
    const text = glued.map((block) => block.text).join('\n\n');
    units.push({ blocks: glued, text, tokens: countTokens(text), section });
    leading = [];
    section = false;
  };
  for (const block of blocks) {
    const heading = looksLikeHeading(block);
    if (heading || introduces(block)) {
      leading.push(block);
      section ||= heading;
      continue;
    }
    push([...leading, block]);
  }
  if (leading.length > 0) push(leading);
  return units;
}

/** A line break before a list item or a table row: where a long list or table may be cut. */
const ITEM_BREAK = /\n(?=[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]|[ \t]*\|)/;

/**
 * Splits blocks that are too long for one chunk at the finest boundary needed: between the
 * blocks glued into one unit (a heading and its section), between list items or table rows
 * (lines kept), then at sentence ends, then at spaces. Code is cut between lines, each piece
 * fenced again, so every chunk's fences are balanced.
 */
function splitLong(blocks: SourceBlock[], maxTokens: number): string[] {
  if (blocks.length > 1) {
    const pieces = blocks.flatMap((block) =>
      countTokens(block.text) <= maxTokens ? [block.text] : splitLong([block], maxTokens),
    );
    return pack(pieces, maxTokens, '\n\n');
  }
  const block = blocks[0]!;
  if (block.kind === 'code') return splitCode(block.text, maxTokens);
  if (block.kind === 'table') return splitTable(block.text, maxTokens);
  return splitText(block.text, maxTokens);
}

function splitText(text: string, maxTokens: number): string[] {
  const items = text.split(ITEM_BREAK);
  if (items.length > 1) {
    const pieces = items.flatMap((item) =>
      countTokens(item) <= maxTokens ? [item] : splitText(item, maxTokens),
    );
    return pack(pieces, maxTokens, '\n');
  }
  // Sentence ends (not before a lowercase word, which goes on the sentence), or line breaks.
  const bySentence = text
    .split(/(?<=[.!?…]["'”’)\]]*)\s+(?=[^\s\p{Ll}])|\n+/u)
    .filter((s) => s.trim() !== '');
  const pieces: string[] = [];
  for (const sentence of bySentence) {
    if (countTokens(sentence) <= maxTokens) {
      pieces.push(sentence);
      continue;
    }
    for (const word of sentence.split(/\s+/)) {
      if (countTokens(word) <= maxTokens) pieces.push(word);
      else pieces.push(...slices(word, maxTokens * 4));
    }
  }
  return pack(pieces, maxTokens, ' ');
}

const slices = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );

/** A table cut between rows, each piece under the table's header, so each reads as a table. */
function splitTable(table: string, maxTokens: number): string[] {
  const lines = table.split('\n');
  const header = lines.slice(0, 2).join('\n');
  const room = Math.max(8, maxTokens - countTokens(header) - 1);
  const rows = lines
    .slice(2)
    .flatMap((row) => (countTokens(row) <= room ? [row] : splitText(row, room)));
  return pack(rows, room, '\n').map((piece) => `${header}\n${piece}`);
}

/** A fenced block cut between its lines, each piece in fences of its own. */
function splitCode(code: string, maxTokens: number): string[] {
  const lines = code.split('\n');
  const open = lines[0]!;
  const close = lines.at(-1)!;
  const room = Math.max(8, maxTokens - countTokens(`${open}\n\n${close}`));
  const lineTokens = lines
    .slice(1, -1)
    .flatMap((line) => (countTokens(line) <= room ? [line] : slices(line, room * 4)));
  const lang = open.replace(/^`+/, '');
  return pack(lineTokens, room, '\n').map((body) => fenced(body, lang));
}

/** Greedily joins pieces into chunks of at most maxTokens (token sums kept incrementally). */
function pack(pieces: string[], maxTokens: number, glue: string): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const piece of pieces) {
    const pieceTokens = countTokens(piece);
    if (current.length > 0 && tokens + 1 + pieceTokens > maxTokens) {
      chunks.push(current.join(glue));
      current = [];
      tokens = 0;
    }
    tokens += pieceTokens + (current.length > 0 ? 1 : 0);
    current.push(piece);
  }
  if (current.length > 0) chunks.push(current.join(glue));
  return chunks;
}

/** The chunks of a text, in order, with their headings; empty text gives no chunks. */
export function cutChunks(text: string, maxTokens = CHUNK_TOKENS): CutChunk[] {
  const chunks: CutChunk[] = [];
  let current: string[] = [];
  let headings: string[] = [];
  let opensWithHeading = false;
  let currentTokens = 0;
  const flush = () => {
    if (current.length > 0) chunks.push({ text: current.join('\n\n'), headings, opensWithHeading });
    current = [];
    headings = [];
    currentTokens = 0;
  };
  const add = (text: string, unit?: Unit) => {
    if (current.length === 0) opensWithHeading = unit?.blocks[0]?.kind === 'heading';
    for (const block of unit?.blocks ?? [])
      if (block.heading !== undefined) headings.push(block.heading);
    currentTokens += countTokens(text) + (current.length > 0 ? 1 : 0);
    current.push(text);
  };
  for (const unit of unitsOf(sourceBlocks(text))) {
    if (unit.tokens > maxTokens) {
      flush();
      const pieces = splitLong(unit.blocks, maxTokens);
      pieces.forEach((piece, i) => {
        add(piece, i === 0 ? unit : undefined);
        if (i < pieces.length - 1) flush();
      });
      continue;
    }
    const full = currentTokens + unit.tokens + 1 > maxTokens;
    if (full || (unit.section && currentTokens >= maxTokens / 2)) flush();
    add(unit.text, unit);
  }
  flush();
  return chunks;
}

/** The chunks' texts alone. */
export function chunkText(text: string, maxTokens = CHUNK_TOKENS): string[] {
  return cutChunks(text, maxTokens).map((chunk) => chunk.text);
}
