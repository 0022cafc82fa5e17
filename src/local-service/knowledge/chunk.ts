// Cutting a source's text into chunks that follow its structure: one section (the blocks
// under one heading) is one chunk, or several when it is long, each carrying its heading path
// ("Options › threshold"). Blocks stay whole: a paragraph, a list, a table, a code block; only
// a block longer than a whole chunk is cut, at sentences (Intl.Segmenter), list items, table
// rows (each piece under the table's header) or code lines (each piece fenced anew).
// Text is read as Markdown by marked (markdown-source.ts); plain text reads as paragraphs, and
// a short line of its own without an ending reads as a heading (a PDF's or a .txt's).
import { type SourceBlock, fenced, sourceBlocks } from './markdown-source.js';
import { sentencesOf } from './segments.js';

/**
 * Most tokens in a chunk: about 220 English words, a section of a manual. Big enough that a
 * section's answer and its context travel together; small enough that bm25's length
 * normalization still tells a focused section from a long one that names the words in passing.
 */
export const CHUNK_TOKENS = 300;

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/**
 * Estimated tokens of a text: one per 4 characters (close for English and code with GPT-style
 * tokenizers), one per character for CJK scripts. The same estimate fills DataSource.tokens.
 */
export function countTokens(text: string): number {
  if (text === '') return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil((text.length - cjk) / 4) + cjk;
}

/** A chunk and the headings above it, outermost first. */
export interface CutChunk {
  text: string;
  headings: string[];
}

/** The depth of a heading guessed from a plain line: below any written heading. */
const GUESSED = 7;

/** A plain line standing alone, short and without an ending, reads as a heading. */
function headingOf(block: SourceBlock): { depth: number; words: string } | undefined {
  if (block.kind === 'heading') {
    return { depth: /^#+/.exec(block.text)![0].length, words: block.heading ?? '' };
  }
  if (block.kind !== 'paragraph' || block.text.includes('\n') || block.text.length > 80) return;
  if (/^\s*(?:[-*•+]|\d{1,3}[.)])\s/.test(block.text)) return;
  if (/[.!?:;,。！？：；，]["'”’)\]]*$/.test(block.text)) return;
  return { depth: GUESSED, words: block.text.trim() };
}

const ITEM_START = /\n(?=[ \t]{0,3}(?:[-*+•]|\d{1,9}[.)])[ \t])/;

/** A block too long for one chunk, cut at its finest natural boundary into pieces that fit. */
function piecesOf(block: SourceBlock, max: number): string[] {
  if (countTokens(block.text) <= max) return [block.text];
  const { kind, text } = block;
  if (kind === 'code') {
    const lines = text.split('\n');
    const lang = lines[0]!.replace(/^`+/, '');
    return pack(
      lines.slice(1, -1).flatMap((l) => hardCut(l, max - 8)),
      max - 8,
      '\n',
    ).map((body) => fenced(body, lang));
  }
  if (kind === 'table') {
    const [head, rule, ...rows] = text.split('\n');
    const header = `${head}\n${rule}`;
    const room = max - countTokens(header);
    return pack(
      rows.flatMap((row) => hardCut(row, room)),
      room,
      '\n',
    ).map((rows) => `${header}\n${rows}`);
  }
  const items = text.split(ITEM_START);
  if (items.length > 1)
    return pack(
      items.flatMap((item) => piecesOf({ kind, text: item }, max)),
      max,
      '\n',
    );
  const said = [...sentencesOf(text)].map((s) => s.segment.trim()).filter(Boolean);
  return pack(
    said.flatMap((sentence) => hardCut(sentence, max)),
    max,
    ' ',
  );
}

/** Text longer than max cut at spaces, or (one endless word) at max's length in characters. */
function hardCut(text: string, max: number): string[] {
  if (countTokens(text) <= max) return [text];
  const words = text.split(/(?<=\s)/).flatMap((word) => {
    const size = max * 4;
    if (countTokens(word) <= max) return [word];
    return Array.from({ length: Math.ceil(word.length / size) }, (_, i) =>
      word.slice(i * size, (i + 1) * size),
    );
  });
  return pack(words, max, '').map((piece) => piece.trim());
}

/** Greedily joins pieces into runs of at most max tokens. */
function pack(pieces: string[], max: number, glue: string): string[] {
  const runs: string[] = [];
  let run: string[] = [];
  let tokens = 0;
  for (const piece of pieces) {
    const size = countTokens(piece) + 1;
    if (run.length > 0 && tokens + size > max) {
      runs.push(run.join(glue));
      run = [];
      tokens = 0;
    }
    run.push(piece);
    tokens += size;
  }
  if (run.length > 0) runs.push(run.join(glue));
  return runs;
}

/** The chunks of a text, in order, each with its heading path; empty text gives none. */
export function cutChunks(text: string, max = CHUNK_TOKENS): CutChunk[] {
  const chunks: CutChunk[] = [];
  const path: { depth: number; words: string }[] = [];
  let body: string[] = [];
  const flush = () => {
    const headings = path.map((heading) => heading.words);
    // A lead-in ending in ":" stays with what it introduces: no cut right after it.
    let run: string[] = [];
    let tokens = 0;
    for (const piece of body) {
      const size = countTokens(piece) + 1;
      if (run.length > 0 && tokens + size > max && !/:\s*$/.test(run.at(-1)!)) {
        chunks.push({ text: run.join('\n\n'), headings });
        run = [];
        tokens = 0;
      }
      run.push(piece);
      tokens += size;
    }
    if (run.length > 0) chunks.push({ text: run.join('\n\n'), headings });
    body = [];
  };
  const blocks = sourceBlocks(text);
  blocks.forEach((block, i) => {
    const heading = headingOf(block);
    // A short plain line heads a section only when text follows it: else it is text.
    const next = blocks[i + 1];
    const heads =
      heading?.depth !== GUESSED || (next !== undefined && headingOf(next) === undefined);
    if (heading === undefined || !heads) {
      body.push(...piecesOf(block, max));
      return;
    }
    flush();
    while (path.length > 0 && path.at(-1)!.depth >= heading.depth) path.pop();
    if (heading.words !== '') path.push(heading);
  });
  flush();
  return chunks;
}

/** The chunks' texts alone. */
export function chunkText(text: string, max = CHUNK_TOKENS): string[] {
  return cutChunks(text, max).map((chunk) => chunk.text);
}
