// The pieces of the BM25 index (bm25.ts) that do not need its state: a term's posting list,
// and the two lookups its search uses.

/** A term's documents, by id ascending, with the term's frequency in each. */
export class Posting {
  docs = new Int32Array(4);
  tfs = new Uint16Array(4);
  length = 0;
  /** Living documents holding the term. */
  df = 0;
  /** Whether the index lists it (it has had a document since it was last compacted away). */
  listed = false;

  constructor(
    readonly term: string,
    /** Its number in the index's dictionary (see term-dictionary.ts). */
    readonly ordinal: number,
  ) {}

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

/** Whether two terms are at most one edit (insert, delete, substitute) apart. */
export function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return a === b;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Index of doc in the first `length` ids of a sorted posting, or -1. */
export function findDoc(docs: Int32Array, length: number, doc: number): number {
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
