// The floor every answer is compared with: the top passage of a plain SQLite FTS5 BM25 search
// over the same texts, built here in memory (passages of 150 words, the question's words
// OR'ed, bm25 order). Nothing of the local service's own search is used.
import Database from 'better-sqlite3';

export const FLOOR_PASSAGE_WORDS = 150;

export interface FloorHit {
  /** The document the passage came from. */
  doc: string;
  passage: string;
}

export class FloorIndex {
  private readonly db = new Database(':memory:');
  private readonly insert;
  private readonly top;

  constructor() {
    this.db.exec(
      "CREATE VIRTUAL TABLE passages USING fts5(text, doc UNINDEXED, tokenize = 'porter unicode61')",
    );
    this.insert = this.db.prepare<[string, string]>(
      'INSERT INTO passages (text, doc) VALUES (?, ?)',
    );
    this.top = this.db.prepare<[string], { text: string; doc: string }>(
      'SELECT text, doc FROM passages WHERE passages MATCH ? ORDER BY bm25(passages) LIMIT 1',
    );
  }

  /** Cuts the text into consecutive passages of FLOOR_PASSAGE_WORDS words. */
  add(doc: string, text: string): void {
    const tokens = text.split(/(\s+)/);
    // tokens alternate word, whitespace: keep the original spacing (code stays readable).
    let passage = '';
    let count = 0;
    for (const token of tokens) {
      if (token === '') continue;
      if (!/^\s+$/.test(token)) count++;
      passage += token;
      if (count === FLOOR_PASSAGE_WORDS) {
        this.insert.run(passage.trim(), doc);
        passage = '';
        count = 0;
      }
    }
    if (passage.trim() !== '') this.insert.run(passage.trim(), doc);
  }

  search(query: string): FloorHit | undefined {
    const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
    if (words.length === 0) return undefined;
    const row = this.top.get(words.map((w) => `"${w}"`).join(' OR '));
    return row && { doc: row.doc, passage: row.text };
  }

  close(): void {
    this.db.close();
  }
}
