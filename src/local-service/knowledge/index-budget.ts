// Keeps the in-memory search indexes within a bound on the chunks they hold together.
//
// Indexes are kept least recently searched first; when loading or growing one would pass the
// bound, the least recently searched others are dropped (they are rebuilt from the store on
// their next search). The index being loaded or grown is never dropped for its own sake: one
// larger than the whole bound is kept, alone.
//
// Dropping is a plain, synchronous forget: callers must make sure nothing is lost by it (the
// search index writes the store before its in-memory index, see search-index.ts).

export interface Sized {
  /** Chunks held. */
  readonly size: number;
}

export interface BudgetEvents {
  /** An index was dropped to make room. */
  dropped?(key: string, chunks: number): void;
  /** An index alone holds more than the bound (it is kept, and every other one dropped). */
  oversize?(key: string, chunks: number): void;
}

export class IndexBudget<T extends Sized> {
  /** Least recently searched first (a Map iterates in insertion order). */
  private readonly held = new Map<string, { value: T; size: number }>();
  private total = 0;

  constructor(
    readonly limit: number,
    private readonly events: BudgetEvents = {},
  ) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`maxIndexedChunks: must be a whole number of at least 1, got ${limit}`);
    }
  }

  /** Chunks held across every index. */
  get chunks(): number {
    return this.total;
  }

  /** The keys held, least recently searched first. */
  keys(): string[] {
    return [...this.held.keys()];
  }

  /** The index of key, if held (its place in the order is unchanged). */
  get(key: string): T | undefined {
    return this.held.get(key)?.value;
  }

  /** Marks key as the most recently searched. */
  touch(key: string): void {
    const entry = this.held.get(key);
    if (entry === undefined) return;
    this.held.delete(key);
    this.held.set(key, entry);
  }

  /**
   * Drops the least recently searched indexes other than key until `incoming` more chunks
   * fit: called before an index is built, so the memory is freed before it is needed.
   */
  makeRoomFor(key: string, incoming: number): void {
    this.shrinkTo(this.limit - incoming, key);
  }

  /** Holds a freshly built index as the most recently searched, then keeps within the bound. */
  hold(key: string, value: T): void {
    this.forget(key);
    this.held.set(key, { value, size: value.size });
    this.total += value.size;
    this.settle(key);
  }

  /**
   * Holds an index built ahead of need (warm-up) as the least recently searched, without
   * dropping any other: false, and nothing held, when it does not fit beside those held.
   */
  holdIfRoom(key: string, value: T): boolean {
    if (this.held.has(key) || this.total + value.size > this.limit) return false;
    const others = [...this.held];
    this.held.clear();
    this.held.set(key, { value, size: value.size });
    for (const [other, entry] of others) this.held.set(other, entry);
    this.total += value.size;
    return true;
  }

  /** Takes in key's new size after it changed, then keeps within the bound (sparing key). */
  resized(key: string): void {
    const entry = this.held.get(key);
    if (entry === undefined) return;
    this.total += entry.value.size - entry.size;
    entry.size = entry.value.size;
    this.settle(key);
  }

  clear(): void {
    this.held.clear();
    this.total = 0;
  }

  private settle(key: string): void {
    this.shrinkTo(this.limit, key);
    if (this.total > this.limit) this.events.oversize?.(key, this.held.get(key)?.size ?? 0);
  }

  /** Drops indexes, least recently searched first and never `spare`, until total <= target. */
  private shrinkTo(target: number, spare: string): void {
    for (const [key, entry] of this.held) {
      if (this.total <= target) return;
      if (key === spare) continue;
      this.forget(key);
      this.events.dropped?.(key, entry.size);
    }
  }

  private forget(key: string): void {
    const entry = this.held.get(key);
    if (entry === undefined) return;
    this.held.delete(key);
    this.total -= entry.size;
  }
}
