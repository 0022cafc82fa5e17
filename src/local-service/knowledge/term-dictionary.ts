// The terms of one BM25 index (bm25.ts), each with its posting and a number (its ordinal, in
// the order the terms were first met), and the raw tokens met so far with the term of each,
// so that indexing a text looks each word up once, in place (see token-map.ts).
import { Posting } from './posting.js';
import { normalizeTerm } from './terms.js';
import { TokenMap } from './token-map.js';

export class TermDictionary {
  /** Every posting made, by term (listed in the index or not). */
  private readonly byTerm = new Map<string, Posting>();
  /** Postings by ordinal. */
  readonly byOrdinal: Posting[] = [];
  private readonly tokens = new TokenMap();
  /** Term ordinal by token entry; -1 for a stop word. */
  private tokenOrdinals = new Int32Array(1024);

  /** The posting of a term, made (unlisted, empty) when new. */
  posting(term: string): Posting {
    let posting = this.byTerm.get(term);
    if (posting === undefined) {
      posting = new Posting(term, this.byOrdinal.length);
      this.byTerm.set(term, posting);
      this.byOrdinal.push(posting);
    }
    return posting;
  }

  /** The ordinal of the term of the token text[start, end) hashed `hash`; -1 for a stop word. */
  ordinalAt(text: string, start: number, end: number, hash: number): number {
    const entry = this.tokens.find(text, start, end, hash);
    if (entry >= 0) return this.tokenOrdinals[entry]!;
    const added = this.tokens.add(text, start, end, hash);
    if (added === this.tokenOrdinals.length) {
      const bigger = new Int32Array(added * 2);
      bigger.set(this.tokenOrdinals);
      this.tokenOrdinals = bigger;
    }
    const term = normalizeTerm(text.slice(start, end));
    const ordinal = term === null ? -1 : this.posting(term).ordinal;
    this.tokenOrdinals[added] = ordinal;
    return ordinal;
  }
}
