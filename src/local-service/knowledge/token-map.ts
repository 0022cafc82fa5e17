// Raw tokens (as they appear in a text) to small integers, looked up by their place in the
// text without cutting them out: the scanner in terms.ts hashes each token as it reads it.
//
// Why not a Map<string, …>: indexing looks up every word of every chunk, and cutting each one
// out of its text and hashing it again was most of the time of an index build. Why this
// layout: the lookups are memory-bound, so the slots (hash, entry) sit in one typed array and
// the tokens' characters in one more, in the order first seen, where the frequent ones stay
// together in the cache.

/** FNV-1a over UTF-16 code units: start from HASH_SEED, then hash = mix(hash, unit) per unit. */
export const HASH_SEED = 0x811c9dc5 | 0;
export const HASH_PRIME = 16_777_619;

export function hashOf(token: string): number {
  let hash = HASH_SEED;
  for (let i = 0; i < token.length; i++) hash = Math.imul(hash ^ token.charCodeAt(i), HASH_PRIME);
  return hash;
}

export class TokenMap {
  /** Two Int32 per slot: the token's hash, and its entry + 1 (0 marks an empty slot). */
  private slots = new Int32Array(2 * 1024);
  private mask = 1023;
  /** Entry e's characters are chars[starts[e], starts[e + 1]). */
  private chars = new Uint16Array(4096);
  private starts = new Int32Array(512);
  private hashes = new Int32Array(512);
  private entries = 0;

  /** Tokens held; entries are numbered 0, 1, 2… in the order they were added. */
  get size(): number {
    return this.entries;
  }

  /** The entry of text[start, end) (whose hash is given), or -1. */
  find(text: string, start: number, end: number, hash: number): number {
    const { slots, mask, chars, starts } = this;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[2 * slot + 1]! - 1;
      if (entry < 0) return -1;
      if (slots[2 * slot] !== hash) continue;
      const from = starts[entry]!;
      if (starts[entry + 1]! - from !== length) continue;
      let i = 0;
      while (i < length && chars[from + i] === text.charCodeAt(start + i)) i++;
      if (i === length) return entry;
    }
  }

  /** Adds text[start, end), known to be absent (find gave -1); returns its entry. */
  add(text: string, start: number, end: number, hash: number): number {
    const entry = this.entries++;
    if (entry + 2 > this.starts.length) {
      this.starts = grown(this.starts, this.starts.length * 2);
      this.hashes = grown(this.hashes, this.hashes.length * 2);
    }
    const from = this.starts[entry]!;
    const length = end - start;
    if (from + length > this.chars.length) {
      this.chars = grown(this.chars, Math.max(this.chars.length * 2, from + length));
    }
    for (let i = 0; i < length; i++) this.chars[from + i] = text.charCodeAt(start + i);
    this.starts[entry + 1] = from + length;
    this.hashes[entry] = hash;
    // At most half the slots are used, so probe runs stay short.
    if (2 * this.entries > this.mask + 1) this.rehash(2 * (this.mask + 1));
    else this.place(entry, hash);
    return entry;
  }

  clear(): void {
    this.slots.fill(0);
    this.entries = 0;
  }

  private place(entry: number, hash: number): void {
    let slot = hash & this.mask;
    while (this.slots[2 * slot + 1] !== 0) slot = (slot + 1) & this.mask;
    this.slots[2 * slot] = hash;
    this.slots[2 * slot + 1] = entry + 1;
  }

  private rehash(capacity: number): void {
    this.slots = new Int32Array(2 * capacity);
    this.mask = capacity - 1;
    for (let entry = 0; entry < this.entries; entry++) this.place(entry, this.hashes[entry]!);
  }
}

function grown<T extends Int32Array | Uint16Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (size: number) => T)(size);
  bigger.set(array);
  return bigger;
}
