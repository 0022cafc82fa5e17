// Cutting a source's text into chunks of about CHUNK_TOKENS tokens for retrieval.
//
// Tokens are estimated, not counted with a model's tokenizer: one token per 4 characters
// (close for English and code with GPT-style tokenizers), and one per character for CJK
// scripts, which tokenize about that densely. The same estimate fills DataSource.tokens.
//
// Chunks end on paragraph boundaries where they can, then on sentence boundaries, then on
// whitespace; never inside a word, except a single "word" longer than a whole chunk (a
// base64 blob, say), which is cut at the chunk size. A fenced code block is one paragraph,
// blank lines and all. A heading is kept with the section it introduces: it is glued to the
// next paragraph and, when the current chunk is already half full, starts a new chunk. A
// paragraph ending with ":" is glued to what it introduces (a code block, a list) the same way.
import { rawParagraphs } from './markdown.js';

export const CHUNK_TOKENS = 300;

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

/** Estimated tokens of a text (see the note at the top of this file). */
export function countTokens(text: string): number {
  if (text === '') return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil((text.length - cjk) / 4) + cjk;
}

interface Unit {
  text: string;
  tokens: number;
  /** Starts with a heading: prefers to open a new chunk. */
  section: boolean;
}

function isHeading(paragraph: string): boolean {
  if (paragraph.includes('\n')) return false;
  if (/^#{1,6}\s/.test(paragraph)) return true;
  if (/^\s*(?:[-*•+]|\d{1,3}[.)])\s/.test(paragraph)) return false;
  return paragraph.length <= 80 && !/[.!?:;,]["'”’)\]]*$/.test(paragraph);
}

const introduces = (paragraph: string) =>
  /:\s*$/.test(paragraph) && !/^\s*(`{3}|~{3})/.test(paragraph);

/** Paragraphs, with each run of headings (and lead-ins ending in ":") glued to the next one. */
function unitsOf(text: string): Unit[] {
  const units: Unit[] = [];
  let leading: string[] = [];
  let section = false;
  for (const paragraph of rawParagraphs(text)) {
    const heading = isHeading(paragraph);
    if (heading || introduces(paragraph)) {
      leading.push(paragraph);
      section ||= heading;
      continue;
    }
    const joined = [...leading, paragraph].join('\n\n');
    units.push({ text: joined, tokens: countTokens(joined), section });
    leading = [];
    section = false;
  }
  if (leading.length > 0) {
    const joined = leading.join('\n\n');
    units.push({ text: joined, tokens: countTokens(joined), section });
  }
  return units;
}

/** A line break before a list item or a table row: where a long list or table may be cut. */
const ITEM_BREAK = /\n(?=[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]|[ \t]*\|)/;

/**
 * Splits text that is too long for one chunk at the finest boundary needed: between the
 * paragraphs glued into one unit (a heading and its section), between list items or table
 * rows (lines kept), then at sentence ends, then at spaces.
 */
function splitLong(text: string, maxTokens: number): string[] {
  const paragraphs = rawParagraphs(text);
  if (paragraphs.length > 1) {
    const pieces = paragraphs.flatMap((paragraph) =>
      countTokens(paragraph) <= maxTokens ? [paragraph] : splitLong(paragraph, maxTokens),
    );
    return pack(pieces, maxTokens, '\n\n');
  }
  const items = text.split(ITEM_BREAK);
  if (items.length > 1) {
    const pieces = items.flatMap((item) =>
      countTokens(item) <= maxTokens ? [item] : splitLong(item, maxTokens),
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
      else
        for (let i = 0; i < word.length; i += maxTokens * 4)
          pieces.push(word.slice(i, i + maxTokens * 4));
    }
  }
  return pack(pieces, maxTokens, ' ');
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

/** The chunks of a text, in order; empty text gives no chunks. */
export function chunkText(text: string, maxTokens = CHUNK_TOKENS): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  const flush = () => {
    if (current.length > 0) chunks.push(current.join('\n\n'));
    current = [];
    currentTokens = 0;
  };
  for (const unit of unitsOf(text)) {
    if (unit.tokens > maxTokens) {
      flush();
      const pieces = splitLong(unit.text, maxTokens);
      chunks.push(...pieces.slice(0, -1));
      current = pieces.slice(-1);
      currentTokens = countTokens(current[0] ?? '');
      continue;
    }
    const full = currentTokens + unit.tokens + 1 > maxTokens;
    if (full || (unit.section && currentTokens >= maxTokens / 2)) flush();
    current.push(unit.text);
    currentTokens += unit.tokens + (current.length > 1 ? 1 : 0);
  }
  flush();
  return chunks;
}
