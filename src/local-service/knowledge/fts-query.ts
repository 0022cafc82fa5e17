// From a question to FTS5 MATCH expressions, cheaply enough for 1M chunks.
//
// The question's words are read by FTS5's own tokenizer (through a small temporary FTS5 table,
// so stems agree with the index exactly), stop words dropped. Each word becomes a clause with
// its document frequency from the fts5vocab table: the word itself; else, for a word the index
// does not hold, its prefix ("instal" → instal*) or its nearest spellings ("refnd" → refund).
//
// Why the plan has tiers: FTS5 scores every row that matches, so a query's cost is the number
// of rows its terms reach. Words in more than half the chunks are dropped (FTS5's bm25 gives
// them an idf of ~0, so ranks do not change); then the AND of the clauses is tried first,
// rarest first; only when fewer than `limit` chunks hold them all does an OR run, over the
// rarest clauses whose frequencies add up to at most OR_BUDGET rows.
import { distance } from 'fastest-levenshtein';
import type { ServiceDb } from '../db/open.js';
import { isStopWord, tokenize } from './terms.js';

export interface Clause {
  /** The clause in FTS5 query syntax. */
  expr: string;
  /** Chunks holding it (summed over alternatives: an upper bound). */
  df: number;
}

/** The OR tier reaches at most about this many rows (the two rarest clauses always run). */
export const OR_BUDGET = 40_000;
/** Spellings tried for a word the index does not hold. */
const MAX_SPELLINGS = 4;
/** Vocabulary terms read when looking for spellings (those sharing the word's first letters). */
const MAX_SPELLING_CANDIDATES = 20_000;

const quote = (term: string) => `"${term.replace(/"/g, '""')}"`;

/** Allowed edits by word length, as search engines' "auto" fuzziness does. */
const maxEdits = (length: number) => (length < 4 ? 0 : length <= 5 ? 1 : 2);

export class QueryPlanner {
  private readonly statements;

  constructor(db: ServiceDb) {
    // Per connection: the tokenizer's view of a question, then read back through fts5vocab.
    db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.question_words USING fts5(
        words, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.question_terms
        USING fts5vocab(temp, question_words, 'instance');
    `);
    this.statements = {
      clear: db.prepare('DELETE FROM temp.question_words'),
      put: db.prepare<[string]>('INSERT INTO temp.question_words (words) VALUES (?)'),
      read: db.prepare<[], { term: string }>(
        'SELECT term FROM temp.question_terms ORDER BY offset',
      ),
      df: db.prepare<[string], { doc: number }>('SELECT doc FROM chunks_vocab WHERE term = ?'),
      range: db.prepare<[string, string, number], { term: string; doc: number }>(
        'SELECT term, doc FROM chunks_vocab WHERE term >= ? AND term < ? LIMIT ?',
      ),
      total: db.prepare<[], { n: number | null }>('SELECT max(id) AS n FROM chunks'),
    };
  }

  /** Rows indexed, or an upper bound of it (ids are never reused downwards). */
  totalChunks(): number {
    return this.statements.total.get()?.n ?? 0;
  }

  /** The index terms of a text's words, stop words left out, each once, in order. */
  stems(text: string): string[] {
    const words = tokenize(text).filter((word) => !isStopWord(word.toLowerCase()));
    if (words.length === 0) return [];
    const s = this.statements;
    s.clear.run();
    s.put.run(words.join(' '));
    const stems = s.read.all().map((row) => row.term);
    s.clear.run();
    return [...new Set(stems)];
  }

  private df(term: string): number {
    return this.statements.df.get(term)?.doc ?? 0;
  }

  private withPrefix(stem: string): Clause | undefined {
    if (stem.length < 3) return undefined;
    const rows = this.statements.range.all(stem, `${stem}\u{10ffff}`, MAX_SPELLING_CANDIDATES);
    if (rows.length === 0) return undefined;
    return { expr: `${quote(stem)} *`, df: rows.reduce((sum, row) => sum + row.doc, 0) };
  }

  private spellings(stem: string): Clause | undefined {
    const edits = maxEdits(stem.length);
    if (edits === 0) return undefined;
    const lead = stem.slice(0, 1);
    const near = this.statements.range
      .all(lead, `${lead}\u{10ffff}`, MAX_SPELLING_CANDIDATES)
      .filter((row) => Math.abs(row.term.length - stem.length) <= edits)
      .map((row) => ({ ...row, edits: distance(row.term, stem) }))
      .filter((row) => row.edits <= edits)
      .sort((a, b) => a.edits - b.edits || b.doc - a.doc)
      .slice(0, MAX_SPELLINGS);
    if (near.length === 0) return undefined;
    return {
      expr: `(${near.map((row) => quote(row.term)).join(' OR ')})`,
      df: near.reduce((sum, row) => sum + row.doc, 0),
    };
  }

  /** One clause per word the index can match: itself, its prefix or its nearest spellings. */
  clauses(text: string): Clause[] {
    const clauses: Clause[] = [];
    for (const stem of this.stems(text)) {
      const df = this.df(stem);
      const clause =
        df > 0 ? { expr: quote(stem), df } : (this.withPrefix(stem) ?? this.spellings(stem));
      if (clause !== undefined) clauses.push(clause);
    }
    return clauses;
  }
}

/** Rarest first; words in most chunks dropped when rarer ones remain (their idf is ~0). */
export function selective(clauses: Clause[], total: number): Clause[] {
  if (clauses.length === 0) return [];
  const sorted = [...clauses].sort((a, b) => a.df - b.df);
  const rare = sorted.filter((clause) => clause.df <= total / 2);
  return rare.length > 0 ? rare : sorted.slice(0, 1);
}

/** The rarest clauses whose frequencies add up to OR_BUDGET, and always the two rarest. */
export function withinBudget(clauses: Clause[]): Clause[] {
  let reached = 0;
  return clauses.filter((clause, at) => {
    reached += clause.df;
    return at < 2 || reached <= OR_BUDGET;
  });
}

export const allOf = (clauses: Clause[]) => clauses.map((c) => c.expr).join(' AND ');
export const anyOf = (clauses: Clause[]) => clauses.map((c) => c.expr).join(' OR ');
