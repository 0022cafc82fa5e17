// From a question to FTS5 MATCH expressions, cheaply enough for 1M chunks.
//
// The question's words are read by FTS5's own tokenizer (through a small temporary FTS5 table,
// so stems agree with the index exactly), stop words dropped. Each word becomes a clause with
// its document frequency counted up to DF_CAP (a capped MATCH: fts5vocab would read the whole
// doclist of a common word): the word itself; else, for a word the searched chatbot's chunks do
// not hold, its prefix ("requir" → requir*) or its spellings one edit away ("refnd" → refund),
// each kept only when that chatbot's chunks hold it (the index is every chatbot's).
//
// Why the plan has tiers (see planSearch): FTS5 scores every row that matches, so a query's
// cost is the number of rows its terms reach. Heavy words (in DF_CAP chunks or more, or in
// more than half of a small store, where FTS5's bm25 gives them an idf of ~0) wait until the
// end. AND comes before OR:
// the rarest clauses together, dropping the commonest one at a time while fewer than `limit`
// chunks hold them all; then an OR of the rarest clauses whose frequencies add up to at most
// OR_BUDGET rows, then of the next ones, until something in scope matches.
import type { ServiceDb } from '../db/open.js';
import { isStopWord, joinedPairs, oneEditAway } from './terms.js';

export interface Clause {
  /** The clause in FTS5 query syntax. */
  expr: string;
  /** Chunks holding it (summed over alternatives: an upper bound). */
  df: number;
}

/** An OR reaches at most about this many rows (its rarest clause always runs). */
export const OR_BUDGET = 12_000;
/** Document frequencies are counted up to this; a word reaching it is heavy. */
export const DF_CAP = OR_BUDGET;
/**
 * A question's distinct words searched at most, the first ones (the rest are left out): each
 * costs index reads and, for a misspelling, hundreds of lookups, so a 1 MB question would
 * otherwise hold the service (searches run on its only thread) for minutes.
 */
export const MAX_QUESTION_TERMS = 32;
/** Spellings tried for a word the index does not hold. */
const MAX_SPELLINGS = 4;
/** Longer "words" (hashes, ids) are not spelling mistakes. */
const MAX_SPELLED_LENGTH = 24;
/**
 * A question's words as FTS5's unicode61 reads them: letters, digits and private-use characters,
 * with the combining marks inside them (a decomposed "Zu\u0308rich" is one word, as in the index;
 * splitting at its mark would search "zu" and "rich").
 */
const wordsOf = (text: string) =>
  text.split(/[^\p{L}\p{M}\p{N}\p{Co}]+/u).filter((word) => word !== '');

/** Whether an FTS5 expression matches a chunk where the search looks (its chatbot or agent). */
export type InScope = (expr: string) => boolean;

const quote = (term: string) => `"${term.replace(/"/g, '""')}"`;

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
      df: db.prepare<[string, number], { n: number }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)`,
      ),
      total: db.prepare<[], { n: number | null }>('SELECT max(id) AS n FROM chunks'),
    };
  }

  /** Rows indexed, or an upper bound of it (ids are never reused downwards). */
  totalChunks(): number {
    return this.statements.total.get()?.n ?? 0;
  }

  /** The index terms of a text's words, stop words left out, each once, in order (at most `most`). */
  stems(text: string, most = MAX_QUESTION_TERMS): string[] {
    const words = wordsOf(text).filter((word) => !isStopWord(word.toLowerCase()));
    if (words.length === 0) return [];
    const s = this.statements;
    s.clear.run();
    // Enough words for `most` distinct stems in any ordinary question.
    s.put.run(words.slice(0, 8 * most).join(' '));
    const stems = s.read.all().map((row) => row.term);
    s.clear.run();
    return [...new Set(stems)].slice(0, most);
  }

  private df(term: string): number {
    return this.statements.df.get(quote(term), DF_CAP)?.n ?? 0;
  }

  private withPrefix(stem: string): Clause | undefined {
    if (stem.length < 4) return undefined; // shorter prefixes reach too many words
    const expr = `${quote(stem)} *`;
    const df = this.statements.df.get(expr, DF_CAP)?.n ?? 0;
    return df === 0 ? undefined : { expr, df };
  }

  /**
   * The index terms one edit away from a word it does not hold (a letter dropped, added,
   * changed or two swapped), each read through the tokenizer so "configurng" finds the stem
   * of "configuring". Cost grows with the word's length, not with the index.
   */
  private spellings(word: string, inScope: InScope): Clause | undefined {
    if (word.length < 4 || word.length > MAX_SPELLED_LENGTH) return undefined;
    const variants = oneEditAway(word);
    const near = this.stems(variants.join(' '), variants.length)
      .filter((stem) => stem !== word)
      .map((stem) => ({ stem, df: this.df(stem) }))
      .filter((found) => found.df > 0 && inScope(quote(found.stem)))
      .sort((a, b) => b.df - a.df)
      .slice(0, MAX_SPELLINGS);
    if (near.length === 0) return undefined;
    return {
      expr: `(${near.map((found) => quote(found.stem)).join(' OR ')})`,
      df: Math.min(
        DF_CAP,
        near.reduce((sum, found) => sum + found.df, 0),
      ),
    };
  }

  /**
   * A clause for each pair of adjacent words the index holds written as one ("back up":
   * backup), searched beside the words themselves.
   */
  private joined(text: string, inScope: InScope): Clause[] {
    const pairs = joinedPairs(text).slice(0, MAX_QUESTION_TERMS);
    if (pairs.length === 0) return [];
    return this.stems(pairs.map((pair) => pair.joined).join(' '), pairs.length).flatMap((stem) => {
      const df = this.df(stem);
      return df > 0 && inScope(quote(stem)) ? [{ expr: quote(stem), df }] : [];
    });
  }

  /**
   * One clause per word the index can match: itself, its prefix or its spellings, each only
   * when `inScope` finds it (the index holds every chatbot's words: a word, or a spelling, in
   * other chatbots' sources must not stand in for a correction here). `trustWords` skips the
   * check for a word the table holds (when the chatbot owns most of the table, its rows are
   * filtered anyway, and the check would cost more than the search).
   */
  clauses(text: string, inScope: InScope = () => true, trustWords = false): Clause[] {
    const clauses: Clause[] = this.joined(text, inScope);
    for (const stem of this.stems(text, MAX_QUESTION_TERMS - clauses.length)) {
      const df = this.df(stem);
      const prefix = () => {
        const clause = this.withPrefix(stem);
        return clause && inScope(clause.expr) ? clause : undefined;
      };
      const clause =
        df > 0 && (trustWords || inScope(quote(stem)))
          ? { expr: quote(stem), df }
          : (prefix() ?? this.spellings(stem, inScope));
      if (clause !== undefined) clauses.push(clause);
    }
    return clauses;
  }
}

/** The MATCH bodies to try, in order, and when to stop (see the note at the top). */
export interface SearchStep {
  body: string;
  /** AND steps need `limit` rows to stop; OR steps stop at any row. */
  needsFull: boolean;
}

const rarestFirst = (clauses: Clause[]) => [...clauses].sort((a, b) => a.df - b.df);

/** The rarest clauses whose frequencies add up to OR_BUDGET, and always the rarest one. */
function withinBudget(clauses: Clause[]): Clause[] {
  let reached = 0;
  return clauses.filter((clause, at) => {
    reached += clause.df;
    return at === 0 || reached <= OR_BUDGET;
  });
}

export const allOf = (clauses: Clause[]) => clauses.map((c) => c.expr).join(' AND ');
export const anyOf = (clauses: Clause[]) => clauses.map((c) => c.expr).join(' OR ');

/**
 * The steps of a search for a question's clauses (and, for a follow-up, its topic's clauses,
 * which join the first OR only: they break near-ties, see follow-up.ts).
 */
export function planSearch(own: Clause[], context: Clause[], total: number): SearchStep[] {
  const common = (clause: Clause) => clause.df >= Math.min(DF_CAP, total / 2);
  /** Rarest first, without the common clauses unless there is nothing else. */
  const telling = (clauses: Clause[]) =>
    clauses.some((c) => !common(c)) ? clauses.filter((c) => !common(c)) : clauses;
  const ordered = rarestFirst(own);
  const usable = telling(ordered);
  const steps: SearchStep[] = [];
  if (context.length === 0) {
    for (let k = usable.length; k >= 2; k--) {
      steps.push({ body: allOf(usable.slice(0, k)), needsFull: true });
    }
  }
  const lent = withinBudget(telling(rarestFirst(context)));
  let rest = [...usable, ...ordered.filter((c) => !usable.includes(c))];
  let first = true;
  while (rest.length > 0) {
    const batch = withinBudget(rest);
    steps.push({ body: anyOf(first ? [...batch, ...lent] : batch), needsFull: false });
    rest = rest.slice(batch.length);
    first = false;
  }
  if (first && lent.length > 0) steps.push({ body: anyOf(lent), needsFull: false });
  return steps;
}
