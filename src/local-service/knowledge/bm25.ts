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

import { findDoc, type Posting, withinOneEdit } from './posting.js';
import { TermDictionary } from './term-dictionary.js';
import { tokenSpans } from './terms.js';

const K1 = 1.2;
const B = 0.75;
const TITLE_WEIGHT = 2;
/** Prefix matches ("install" → "installation") count this much; at most MAX_EXPANSIONS each. */
const PREFIX_WEIGHT = 0.5;
const FUZZY_WEIGHT = 0.4;
const MAX_EXPANSIONS = 8;
const BUCKET = 4;

/** A document as addDocument() takes it. */
export interface IndexedDocument {
  texts: string[];
  titleTerms: string[];
}

export interface QueryTerm {
  term: string;
  weight: number;
}

export interface Hit {
  doc: number;
  score: number;
}

export class Bm25Index {
  /** The postings of the terms some document has (searched). */
  private readonly postings = new Map<string, Posting>();
  /** Every posting made, listed or not (compaction unlists a term left without documents). */
  private readonly dictionary = new TermDictionary();
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
    const doc = this.open();
    for (const term of terms) this.count(this.dictionary.posting(term), doc, 1);
    for (const term of titleTerms) this.count(this.dictionary.posting(term), doc, TITLE_WEIGHT);
    return this.close(doc, terms.length + TITLE_WEIGHT * titleTerms.length);
  }

  /**
   * Indexes one document given as texts (its terms are theirs, in order, as termsOf gives
   * them) and the terms of its title; returns its id. The same index as add() with those
   * terms, built without cutting the words out of the texts (see token-map.ts).
   */
  addDocument(texts: string[], titleTerms: string[]): number {
    const doc = this.open();
    let length = TITLE_WEIGHT * titleTerms.length;
    for (const text of texts) {
      const { count, data } = tokenSpans(text);
      for (let t = 0; t < count; t++) {
        const ordinal = this.dictionary.ordinalAt(
          text,
          data[3 * t]!,
          data[3 * t + 1]!,
          data[3 * t + 2]!,
        );
        if (ordinal < 0) continue;
        const posting = this.dictionary.byOrdinal[ordinal]!;
        this.count(posting, doc, 1);
        length++;
      }
    }
    for (const term of titleTerms) this.count(this.dictionary.posting(term), doc, TITLE_WEIGHT);
    return this.close(doc, length);
  }

  /**
   * Indexes documents into an empty index (a rebuild): the same index as addDocument() on
   * each in turn, in three passes. Their words are read once, into one array of term
   * ordinals; counted; then written into postings made at their final size, side by side in
   * two shared arrays. Writing postings one occurrence at a time, each in its own growing
   * arrays, was most of a rebuild's time. Returns the documents' ids. Not empty: one by one.
   */
  addDocuments(documents: readonly IndexedDocument[]): number[] {
    if (this.docCount > 0) return documents.map((d) => this.addDocument(d.texts, d.titleTerms));
    const dictionary = this.dictionary;
    // Pass 1: each document's occurrences, a title's as ~ordinal (negative: it counts double).
    let stream = new Int32Array(1 << 16);
    let used = 0;
    const ends = new Int32Array(documents.length);
    const push = (code: number) => {
      if (used === stream.length) {
        const bigger = new Int32Array(used * 2);
        bigger.set(stream);
        stream = bigger;
      }
      stream[used++] = code;
    };
    documents.forEach(({ texts, titleTerms }, d) => {
      for (const text of texts) {
        const { count, data } = tokenSpans(text);
        for (let t = 0; t < count; t++) {
          const at = 3 * t;
          const ordinal = dictionary.ordinalAt(text, data[at]!, data[at + 1]!, data[at + 2]!);
          if (ordinal >= 0) push(ordinal);
        }
      }
      for (const term of titleTerms) push(~dictionary.posting(term).ordinal);
      ends[d] = used;
    });
    // Pass 2: each term's documents, the order terms are first met in, each document's length.
    const terms = dictionary.byOrdinal.length;
    const df = new Int32Array(terms);
    const lastDoc = new Int32Array(terms).fill(-1);
    const order: number[] = [];
    const ids: number[] = [];
    for (let d = 0, from = 0; d < documents.length; from = ends[d++]!) {
      const doc = this.open();
      let length = 0;
      for (let i = from; i < ends[d]!; i++) {
        const code = stream[i]!;
        const ordinal = code < 0 ? ~code : code;
        length += code < 0 ? TITLE_WEIGHT : 1;
        if (lastDoc[ordinal] === doc) continue;
        if (df[ordinal] === 0) order.push(ordinal);
        df[ordinal]!++;
        lastDoc[ordinal] = doc;
      }
      ids.push(this.close(doc, length));
    }
    // Pass 3: postings laid out in first-met order, listed in that order, then filled.
    let total = 0;
    for (const ordinal of order) total += df[ordinal]!;
    const allDocs = new Int32Array(total);
    const allTfs = new Uint16Array(total);
    const next = new Int32Array(terms);
    let offset = 0;
    for (const ordinal of order) {
      const posting = dictionary.byOrdinal[ordinal]!;
      const size = df[ordinal]!;
      posting.docs = allDocs.subarray(offset, offset + size);
      posting.tfs = allTfs.subarray(offset, offset + size);
      posting.length = posting.df = size;
      this.list(posting);
      next[ordinal] = offset;
      offset += size;
    }
    lastDoc.fill(-1);
    for (let doc = 0, from = 0; doc < documents.length; from = ends[doc++]!) {
      for (let i = from; i < ends[doc]!; i++) {
        const code = stream[i]!;
        const ordinal = code < 0 ? ~code : code;
        const times = code < 0 ? TITLE_WEIGHT : 1;
        if (lastDoc[ordinal] === doc) {
          const at = next[ordinal]! - 1;
          allTfs[at] = Math.min(allTfs[at]! + times, 65_535);
        } else {
          lastDoc[ordinal] = doc;
          const at = next[ordinal]!;
          allDocs[at] = doc;
          allTfs[at] = times;
          next[ordinal] = at + 1;
        }
      }
    }
    return ids;
  }

  private open(): number {
    const doc = this.docCount++;
    if (doc === this.lengths.length) this.grow();
    return doc;
  }

  private close(doc: number, length: number): number {
    this.lengths[doc] = length;
    this.alive[doc] = 1;
    this.totalLength += length;
    this.living++;
    return doc;
  }

  private list(posting: Posting): void {
    posting.listed = true;
    const { term } = posting;
    this.postings.set(term, posting);
    const key = term.slice(0, BUCKET);
    const bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, [term]);
    else bucket.push(term);
  }

  /**
   * Counts `times` more occurrences of a term in doc, straight into its posting (a document's
   * entry is the last of each posting it has): no per-document map. A term is listed when
   * its first document comes, so terms enter the index in first-occurrence order.
   */
  private count(posting: Posting, doc: number, times: number): void {
    if (!posting.listed) this.list(posting);
    const last = posting.length - 1;
    if (last >= 0 && posting.docs[last] === doc) {
      posting.tfs[last] = Math.min(posting.tfs[last]! + times, 65_535);
    } else {
      posting.push(doc, times);
      posting.df++;
    }
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
        posting.listed = false;
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
