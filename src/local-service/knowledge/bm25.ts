// An Okapi BM25 inverted index over typed-array postings.
//
// Why not MiniSearch (tried first): over 30k chunks of synthetic text its queries took
// p50 ~100 ms / p95 ~400-550 ms, because every matching document becomes a result object and
// common terms match most chunks; the target is p95 <= 10 ms over 100k chunks. Here a posting
// is two growable typed arrays (doc ids, term frequencies), scores accumulate in one reused
// Float64Array, and only the best `limit` documents are kept.
//
// Fields: the source title counts TITLE_WEIGHT times per occurrence (a simple BM25F), so a
// question naming a source's title favours it. Removal marks documents dead (skipped while
// scoring, document frequencies kept exact); postings are compacted when the dead outnumber
// the living.

const K1 = 1.2;
const B = 0.75;
const TITLE_WEIGHT = 2;
/** Prefix matches ("install" → "installation") count this much; at most MAX_EXPANSIONS each. */
const PREFIX_WEIGHT = 0.5;
const FUZZY_WEIGHT = 0.4;
const MAX_EXPANSIONS = 8;
const BUCKET = 4;

class Posting {
  docs = new Int32Array(4);
  tfs = new Uint16Array(4);
  length = 0;
  /** Living documents holding the term. */
  df = 0;

  push(doc: number, tf: number): void {
    if (this.length === this.docs.length) {
      const docs = new Int32Array(this.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const tfs = new Uint16Array(this.length * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    this.docs[this.length] = doc;
    this.tfs[this.length] = Math.min(tf, 65_535);
    this.length++;
  }
}

export interface QueryTerm {
  term: string;
  weight: number;
}

export interface Hit {
  doc: number;
  score: number;
}

/** Whether two terms are at most one edit (insert, delete, substitute) apart. */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return a === b;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

export class Bm25Index {
  private readonly postings = new Map<string, Posting>();
  /** Terms by their first BUCKET characters, for prefix expansion without sorting. */
  private readonly buckets = new Map<string, string[]>();
  private lengths = new Uint32Array(1024);
  private alive = new Uint8Array(1024);
  private scores = new Float64Array(1024);
  private docCount = 0;
  private living = 0;
  private totalLength = 0;

  get size(): number {
    return this.living;
  }

  /** Indexes one document; returns its id. `terms` are already normalized. */
  add(terms: string[], titleTerms: string[]): number {
    const doc = this.docCount++;
    if (doc === this.lengths.length) this.grow();
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const term of titleTerms) counts.set(term, (counts.get(term) ?? 0) + TITLE_WEIGHT);
    for (const [term, tf] of counts) {
      let posting = this.postings.get(term);
      if (posting === undefined) {
        posting = new Posting();
        this.postings.set(term, posting);
        const key = term.slice(0, BUCKET);
        const bucket = this.buckets.get(key);
        if (bucket === undefined) this.buckets.set(key, [term]);
        else bucket.push(term);
      }
      posting.push(doc, tf);
      posting.df++;
    }
    const length = terms.length + TITLE_WEIGHT * titleTerms.length;
    this.lengths[doc] = length;
    this.alive[doc] = 1;
    this.totalLength += length;
    this.living++;
    return doc;
  }

  /** Removes a document; `terms`/`titleTerms` must be those it was added with. */
  remove(doc: number, terms: string[], titleTerms: string[]): void {
    if (this.alive[doc] !== 1) return;
    this.alive[doc] = 0;
    this.living--;
    this.totalLength -= this.lengths[doc]!;
    for (const term of new Set([...terms, ...titleTerms])) {
      const posting = this.postings.get(term);
      if (posting !== undefined) posting.df--;
    }
    if (this.docCount - this.living > Math.max(this.living, 10_000)) this.compact();
  }

  private grow(): void {
    const size = this.lengths.length * 2;
    const lengths = new Uint32Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
    const alive = new Uint8Array(size);
    alive.set(this.alive);
    this.alive = alive;
    this.scores = new Float64Array(size);
  }

  /** Drops dead documents from every posting (ids are kept, so callers' maps stay valid). */
  private compact(): void {
    for (const [term, posting] of this.postings) {
      let kept = 0;
      for (let i = 0; i < posting.length; i++) {
        const doc = posting.docs[i]!;
        if (this.alive[doc] !== 1) continue;
        posting.docs[kept] = doc;
        posting.tfs[kept] = posting.tfs[i]!;
        kept++;
      }
      posting.length = kept;
      if (kept === 0) {
        this.postings.delete(term);
        const bucket = this.buckets.get(term.slice(0, BUCKET));
        bucket?.splice(bucket.indexOf(term), 1);
      }
    }
  }

  /**
   * The query terms that have documents; a term with none is widened to its prefix
   * extensions ("instal" → "install", "installer"), or failing that, for a word of five
   * letters or more, to the terms one edit away (a typo).
   */
  expand(query: QueryTerm[]): QueryTerm[] {
    const expanded = new Map<string, number>();
    const has = (term: string) => (this.postings.get(term)?.df ?? 0) > 0;
    const offer = (term: string, weight: number) => {
      if (has(term)) expanded.set(term, Math.max(expanded.get(term) ?? 0, weight));
    };
    for (const { term, weight } of query) {
      if (has(term)) {
        offer(term, weight);
        continue;
      }
      const extensions =
        term.length < BUCKET
          ? []
          : (this.buckets.get(term.slice(0, BUCKET)) ?? [])
              .filter((other) => other.length > term.length && other.startsWith(term) && has(other))
              .sort((a, b) => a.length - b.length)
              .slice(0, MAX_EXPANSIONS);
      for (const other of extensions) offer(other, weight * PREFIX_WEIGHT);
      if (extensions.length > 0 || term.length < 5) continue;
      for (const other of this.postings.keys()) {
        if (withinOneEdit(term, other)) offer(other, weight * FUZZY_WEIGHT);
      }
    }
    return [...expanded].map(([term, weight]) => ({ term, weight }));
  }

  /**
   * The best `limit` documents, best first; `accept` filters documents (by source, say).
   *
   * Exact top-k with MaxScore pruning: terms are scored rarest first; once the k-th best
   * score so far beats everything the remaining (common) terms could add, no unseen
   * document can enter the top k, so those terms only update the documents still in the
   * running, found by binary search in their (id-sorted) postings.
   */
  search(query: QueryTerm[], limit: number, accept?: (doc: number) => boolean): Hit[] {
    if (this.living === 0 || limit <= 0) return [];
    const { scores, alive, lengths } = this;
    const avgLength = this.totalLength / this.living;
    const terms = this.expand(query)
      .map(({ term, weight }) => {
        const posting = this.postings.get(term)!;
        const idf = Math.log(1 + (this.living - posting.df + 0.5) / (posting.df + 0.5)) * weight;
        return { posting, idf };
      })
      .sort((a, b) => a.posting.df - b.posting.df);
    const remainingBound = terms.map(() => 0);
    for (let i = terms.length - 1, sum = 0; i >= 0; i--)
      remainingBound[i] = sum += terms[i]!.idf * (K1 + 1);
    const contribution = (idf: number, tf: number, doc: number) =>
      (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[doc]!) / avgLength));

    let touched: number[] = [];
    let i = 0;
    for (; i < terms.length; i++) {
      if (touched.length >= limit && this.kthScore(touched, limit, accept) > remainingBound[i]!)
        break;
      const { posting, idf } = terms[i]!;
      const { docs, tfs, length } = posting;
      const top = idf * (K1 + 1);
      const base = K1 * (1 - B);
      const perLength = (K1 * B) / avgLength;
      for (let p = 0; p < length; p++) {
        const doc = docs[p]!;
        if (alive[doc] !== 1) continue;
        const tf = tfs[p]!;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += (top * tf) / (tf + base + perLength * lengths[doc]!); // = contribution()
      }
    }
    if (i < terms.length) {
      // Pruned: keep only documents that could still reach the top k.
      const kth = this.kthScore(touched, limit, accept);
      const contenders = touched.filter((doc) => scores[doc]! + remainingBound[i]! >= kth);
      for (const doc of touched) if (scores[doc]! + remainingBound[i]! < kth) scores[doc] = 0;
      touched = contenders;
      for (; i < terms.length; i++) {
        const { posting, idf } = terms[i]!;
        for (const doc of touched) {
          const at = findDoc(posting.docs, posting.length, doc);
          if (at >= 0) scores[doc]! += contribution(idf, posting.tfs[at]!, doc);
        }
      }
    }
    const best = this.topK(touched, limit, accept);
    for (const doc of touched) scores[doc] = 0;
    return best;
  }

  private topK(docs: number[], limit: number, accept?: (doc: number) => boolean): Hit[] {
    const best: Hit[] = [];
    for (const doc of docs) {
      const score = this.scores[doc]!;
      if (best.length === limit && score <= best[limit - 1]!.score) continue;
      if (accept !== undefined && !accept(doc)) continue;
      let at = best.length === limit ? limit - 1 : best.length;
      if (best.length < limit) best.push({ doc, score });
      while (at > 0 && best[at - 1]!.score < score) {
        best[at] = best[at - 1]!;
        at--;
      }
      best[at] = { doc, score };
    }
    return best;
  }

  /** The k-th best accepted score among docs (0 when there are fewer than k). */
  private kthScore(docs: number[], limit: number, accept?: (doc: number) => boolean): number {
    const best = this.topK(docs, limit, accept);
    return best.length < limit ? 0 : best[limit - 1]!.score;
  }
}

/** Index of doc in the first `length` ids of a sorted posting, or -1. */
function findDoc(docs: Int32Array, length: number, doc: number): number {
  let low = 0;
  let high = length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const value = docs[mid]!;
    if (value === doc) return mid;
    if (value < doc) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
