import { describe, expect, it } from 'vitest';
import { Bm25Index, type QueryTerm } from '../../../src/local-service/knowledge/bm25.js';
import { seededRandom } from '../../seeded-random.js';

/** Plain BM25 over every document, the reference the pruned search must agree with. */
function bruteForce(docs: (string[] | undefined)[], query: QueryTerm[], limit: number) {
  const living = docs.filter((d): d is string[] => d !== undefined);
  const avg = living.reduce((sum, d) => sum + d.length, 0) / living.length;
  const df = new Map(
    query.map(({ term }) => [term, living.filter((d) => d.includes(term)).length]),
  );
  const scored = docs.flatMap((terms, doc) => {
    if (terms === undefined) return [];
    let score = 0;
    for (const { term, weight } of query) {
      const tf = terms.filter((t) => t === term).length;
      if (tf === 0) continue;
      const n = df.get(term)!;
      const idf = Math.log(1 + (living.length - n + 0.5) / (n + 0.5)) * weight;
      score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * terms.length) / avg));
    }
    return score > 0 ? [{ doc, score }] : [];
  });
  return scored.sort((a, b) => b.score - a.score || a.doc - b.doc).slice(0, limit);
}

describe('Bm25Index', () => {
  it('returns exactly the BM25 top k despite pruning, also after removals', () => {
    const rand = seededRandom(42);
    const vocab = Array.from({ length: 60 }, (_, i) => `w${i}`);
    // skewed: low-numbered words are very common, so pruning kicks in
    const word = () => vocab[Math.floor(vocab.length * rand() * rand())]!;
    const index = new Bm25Index();
    const docs: (string[] | undefined)[] = [];
    for (let d = 0; d < 1500; d++) {
      const terms = Array.from({ length: 5 + Math.floor(rand() * 40) }, word);
      expect(index.add(terms, [])).toBe(d);
      docs.push(terms);
    }
    for (let d = 0; d < 1500; d += 7) {
      index.remove(d, docs[d]!, []);
      docs[d] = undefined;
    }
    for (let q = 0; q < 200; q++) {
      const query = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => ({
        term: word(),
        weight: rand() < 0.5 ? 0.1 : 1,
      }));
      const unique = [...new Map(query.map((t) => [t.term, t])).values()];
      const expected = bruteForce(docs, unique, 5);
      const actual = index.search(unique, 5);
      expect(actual.map((h) => h.score)).toEqual(expected.map((h) => expect.closeTo(h.score, 9)));
      // ties may order differently; the sets of (doc, score) must agree where scores differ
      expect(new Set(actual.map((h) => h.doc)).size).toBe(actual.length);
    }
  });

  it('filters documents, counts title terms, and forgets removed documents', () => {
    const index = new Bm25Index();
    const a = index.add(['apple', 'pie'], ['recipe']);
    const b = index.add(['apple', 'tart'], []);
    expect(index.search([{ term: 'recipe', weight: 1 }], 5).map((h) => h.doc)).toEqual([a]);
    expect(
      index.search([{ term: 'apple', weight: 1 }], 5, (doc) => doc === b).map((h) => h.doc),
    ).toEqual([b]);
    index.remove(a, ['apple', 'pie'], ['recipe']);
    expect(index.search([{ term: 'apple', weight: 1 }], 5).map((h) => h.doc)).toEqual([b]);
    expect(index.search([{ term: 'pie', weight: 1 }], 5)).toEqual([]);
    expect(index.size).toBe(1);
  });

  it('widens an unknown term to its prefix extensions, else to one-edit neighbours', () => {
    const index = new Bm25Index();
    const doc = index.add(['installation', 'guide'], []);
    expect(index.search([{ term: 'instal', weight: 1 }], 5).map((h) => h.doc)).toEqual([doc]);
    expect(index.search([{ term: 'guidr', weight: 1 }], 5).map((h) => h.doc)).toEqual([doc]);
    expect(index.search([{ term: 'gxxdr', weight: 1 }], 5)).toEqual([]);
  });
});
