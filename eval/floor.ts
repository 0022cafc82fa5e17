// The floor every answer is compared with: the top passages of a plain SQLite FTS5 BM25 search
// over the same texts, built here in memory (passages of 150 words, the question's words
// OR'ed, bm25 order). Nothing of the local service's own search is used. Chinese and Japanese
// questions search a second index with FTS5's trigram tokenizer (issue #20): porter/unicode61
// sees a run of CJK characters as one token, so it cannot find a word inside a sentence.
import { openDatabase } from '../src/sqlite.js';

export const FLOOR_PASSAGE_WORDS = 150;
/** How many top passages "key fact among the floor's top 3" looks at. */
export const FLOOR_TOP = 3;

export interface FloorHit {
  /** The document the passage came from. */
  doc: string;
  passage: string;
}

export type FloorTokenizer = 'porter' | 'trigram';

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Whether a text is (partly) in Chinese, Japanese or Korean script. */
export const isCjk = (text: string): boolean => CJK.test(text);

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/** A line's words and the spaces between them, in order; `word` marks a word. */
function piecesOf(line: string): Array<{ piece: string; word: boolean }> {
  if (isCjk(line)) {
    return [...segmenter.segment(line)].map((s) => ({
      piece: s.segment,
      word: s.isWordLike === true,
    }));
  }
  return line
    .split(/(\s+)/)
    .filter((t) => t !== '')
    .map((t) => ({ piece: t, word: !/^\s+$/.test(t) }));
}

/**
 * The text cut into consecutive passages of FLOOR_PASSAGE_WORDS words, original spacing kept.
 * A word is a run of non-space characters; on a line with CJK script, a word-like segment of
 * Intl.Segmenter (Chinese and Japanese put no spaces between words). Lines are segmented one by
 * one: Intl.Segmenter slows down badly on long strings (seconds for a README).
 */
export function passagesOf(text: string): string[] {
  const pieces = text.split(/(?<=\n)/).flatMap(piecesOf);
  const passages: string[] = [];
  let passage = '';
  let count = 0;
  for (const { piece, word } of pieces) {
    passage += piece;
    if (word && ++count === FLOOR_PASSAGE_WORDS) {
      if (passage.trim() !== '') passages.push(passage.trim());
      passage = '';
      count = 0;
    }
  }
  if (passage.trim() !== '') passages.push(passage.trim());
  return passages;
}

/**
 * The MATCH expression of a question: its words OR'ed, each quoted (so no word is FTS5 syntax).
 * For the trigram index a CJK run is given as its overlapping three-character pieces (shorter
 * terms match nothing there), and other words of fewer than three characters are left out.
 */
export function floorQuery(question: string, tokenizer: FloorTokenizer): string | undefined {
  const runs = [...new Set(question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const terms =
    tokenizer === 'porter'
      ? runs
      : runs.flatMap((run) => {
          const chars = [...run];
          if (!isCjk(run)) return chars.length >= 3 ? [run] : [];
          const pieces: string[] = [];
          for (let i = 0; i + 3 <= chars.length; i++) pieces.push(chars.slice(i, i + 3).join(''));
          return pieces;
        });
  const unique = [...new Set(terms)];
  return unique.length === 0 ? undefined : unique.map((w) => `"${w}"`).join(' OR ');
}

export class FloorIndex {
  private readonly db = openDatabase(':memory:');
  private readonly insert;
  private readonly top;

  constructor(private readonly tokenizer: FloorTokenizer = 'porter') {
    const tokenize = tokenizer === 'porter' ? 'porter unicode61' : 'trigram';
    this.db.exec(
      `CREATE VIRTUAL TABLE passages USING fts5(text, doc UNINDEXED, tokenize = '${tokenize}')`,
    );
    this.insert = this.db.prepare<[string, string]>(
      'INSERT INTO passages (text, doc) VALUES (?, ?)',
    );
    this.top = this.db.prepare<[string, number], { text: string; doc: string }>(
      'SELECT text, doc FROM passages WHERE passages MATCH ? ORDER BY bm25(passages) LIMIT ?',
    );
  }

  add(doc: string, text: string): void {
    for (const passage of passagesOf(text)) this.insert.run(passage, doc);
  }

  /** The best passages for the question, best first (at most `limit`). */
  search(query: string, limit = 1): FloorHit[] {
    const match = floorQuery(query, this.tokenizer);
    if (match === undefined) return [];
    return this.top.all(match, limit).map((row) => ({ doc: row.doc, passage: row.text }));
  }

  close(): void {
    this.db.close();
  }
}
