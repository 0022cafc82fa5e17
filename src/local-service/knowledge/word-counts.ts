// How many chunks hold a word, and which indexed word a misspelled one means, remembered
// between searches while the index is unchanged: a question's words are mostly words asked
// before, and counting a common one reads thousands of index entries. Whether the index
// changed is read from FTS5's structure record (rowid 10 of its data table, FTS5's own
// layout): its write counter moves with every change to the index, by any connection on the
// file, and with nothing else (stored messages and sessions leave it alone).
import type { ServiceDb } from '../db/open.js';
import { isStopword, stemOf } from './words.js';

/** Chunks counted for a word's rarity, at most, and reached by one OR: a word in more is
 * common. Counting or ranking 5,000 chunks takes a few milliseconds. */
export const DF_COUNTED = 5000;
/** Word counts and spellings remembered between changes, at most: a few hundred kB, far more
 * words than questions use between two changes. */
const COUNTS_KEPT = 20_000;

/**
 * The shortest stem read as a misspelling of an indexed word: a shorter one has too many
 * words one edit away to tell which was meant.
 */
const MIN_CORRECTED = 4;

/** A word as an FTS5 string (a phrase of one token). */
export const quoted = (word: string) => `"${word.replaceAll('"', '""')}"`;

/**
 * The MATCH of words in the searched columns. Only a scope-like word ("c12", "s3") needs the
 * column filter, which costs reading every match's positions; the scope column holds no other.
 */
export const inText = (words: string) =>
  /"[cs]\d+"/.test(words) ? `{title heading text} : (${words})` : `(${words})`;

/** The words one edit from a word (a letter left out, swapped, changed or put in). */
function oneEditAway(word: string): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const edits = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const [head, tail] = [word.slice(0, i), word.slice(i)];
    if (tail !== '') edits.add(head + tail.slice(1));
    if (tail.length > 1) edits.add(head + tail[1] + tail[0] + tail.slice(2));
    for (const letter of letters) {
      edits.add(head + letter + tail);
      if (tail !== '') edits.add(head + letter + tail.slice(1));
    }
  }
  edits.delete(word);
  return [...edits];
}

export class WordCounts {
  private readonly counts = new Map<string, number>();
  private readonly spellings = new Map<string, { word: string; df: number }>();
  private indexState: Uint8Array | undefined;
  private readonly statements;

  constructor(db: ServiceDb) {
    this.statements = {
      indexed: db.prepare<[string], { term: string }>(
        'SELECT term FROM chunks_vocab WHERE term IN (SELECT value FROM json_each(?))',
      ),
      structure: db.prepare<[], { block: Uint8Array }>(
        'SELECT block FROM chunks_fts_data WHERE id = 10',
      ),
      df: db.prepare<[string], { n: number }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?
         LIMIT ${DF_COUNTED})`,
      ),
    };
  }

  /** Forgets what was read when the index changed since (or too much is remembered). */
  forgetIfChanged(): void {
    const now = this.statements.structure.get()?.block;
    const same =
      now !== undefined &&
      this.indexState !== undefined &&
      Buffer.compare(this.indexState, now) === 0;
    if (same && this.counts.size + this.spellings.size < COUNTS_KEPT) return;
    this.counts.clear();
    this.spellings.clear();
    this.indexState = now;
  }

  /** How many chunks hold a word, counted up to DF_COUNTED. */
  dfOf(word: string): number {
    let df = this.counts.get(word);
    if (df === undefined) {
      df = this.statements.df.get(inText(quoted(word)))?.n ?? 0;
      this.counts.set(word, df);
    }
    return df;
  }

  /** A word the index never saw, read as the indexed word one edit away ("exaclty"). */
  spelled(word: string): { word: string; df: number } {
    let known = this.spellings.get(word);
    if (known === undefined) {
      known = this.spelledAnew(word);
      this.spellings.set(word, known);
    }
    return known;
  }

  private spelledAnew(word: string): { word: string; df: number } {
    const df = this.dfOf(word);
    const stem = stemOf(word);
    if (df > 0 || stem.length < MIN_CORRECTED || !/^[a-z]+$/.test(stem)) return { word, df };
    let best = { word, df: 0 };
    const edits = JSON.stringify(oneEditAway(stem));
    for (const { term: edit } of this.statements.indexed.all(edits)) {
      // A misspelling keeps its first letter (Pollock and Zamora, 1983: few errors are in
      // it), and a topic word misspelled is no function word: "chat" is not "that", and
      // "rotate" not "notation", but words the documents do not hold.
      if (edit[0] !== stem[0] || isStopword(edit)) continue;
      const known = this.dfOf(edit);
      if (known > best.df) best = { word: edit, df: known };
    }
    return best;
  }
}
