// The faster index build (token scanning in place, postings written in bulk) must index
// exactly what the earlier one did: same terms, same passages, same scores.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../src/local-service/knowledge/bm25.js';
import { createKnowledgeIndex } from '../../../src/local-service/knowledge/index.js';
import { normalizeTerm, termsOf, tokenize } from '../../../src/local-service/knowledge/terms.js';
import { openKeyvStore } from '../../../src/state/keyv.js';
import { seededRandom } from '../../seeded-random.js';
import { WORDS, goldenRun, makeText } from './golden-corpus.js';

/** termsOf as it was: a regular-expression split, then each token normalized. */
function termsOfBefore(text: string): string[] {
  return text
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token !== '')
    .map(normalizeTerm)
    .filter((term): term is string => term !== null);
}

describe('index build', () => {
  it('finds exactly the terms the regular-expression split found', () => {
    const rand = seededRandom(5);
    const odd = ['\ud835', '\udc9c', '\u0301', '\u2028', '_', '😀', '𝒳', 'ǅ', 'İ', '٣', '\u00a0'];
    for (let i = 0; i < 300; i++) {
      const text =
        makeText(rand, 3) +
        Array.from({ length: 40 }, () =>
          rand() < 0.5
            ? odd[Math.floor(rand() * odd.length)]!
            : WORDS[Math.floor(rand() * WORDS.length)]!,
        ).join(rand() < 0.5 ? '' : ' ');
      expect(termsOf(text)).toEqual(termsOfBefore(text));
      expect(tokenize(text).length).toBeGreaterThan(0);
    }
    expect(termsOf('')).toEqual([]);
    expect(termsOf('Installing CAFÉ 😀x𝒳y')).toEqual(['install', 'café', 'x𝒳y']);
  });

  it('answers every search of the golden scenario as the earlier build did', async () => {
    const expected: unknown = JSON.parse(
      readFileSync(new URL('./index-golden.json', import.meta.url), 'utf8'),
    );
    const store = await openKeyvStore('memory://');
    const results = await goldenRun(() =>
      createKnowledgeIndex(store, { maxIndexedChunks: 1_000_000 }),
    );
    await store.close();
    expect(results).toEqual(expected);
  });

  it('builds in bulk the same index as one document at a time', () => {
    const rand = seededRandom(8);
    const documents = Array.from({ length: 400 }, (_, i) => ({
      texts: [makeText(rand, 2), ...(i % 3 === 0 ? ['Heading words'] : [])],
      titleTerms: termsOf(`${WORDS[i % WORDS.length]!} guide`),
    }));
    const bulk = new Bm25Index();
    const single = new Bm25Index();
    expect(bulk.addDocuments(documents)).toEqual(documents.map((_, i) => i));
    for (const d of documents) single.addDocument(d.texts, d.titleTerms);
    // Both then take further documents, and lose some.
    for (const index of [bulk, single]) {
      index.addDocument(['installing the bridge again'], ['extra']);
      index.remove(3, termsOf(documents[3]!.texts.join('\n')), documents[3]!.titleTerms);
    }
    for (let q = 0; q < 80; q++) {
      const query = Array.from({ length: 1 + (q % 4) }, () => ({
        term: normalizeTerm(WORDS[Math.floor(rand() * WORDS.length)]!) ?? 'install',
        weight: q % 5 === 0 ? 0.35 : 1,
      }));
      expect(bulk.search(query, 7)).toEqual(single.search(query, 7));
    }
    expect(bulk.size).toBe(single.size);
  });
});
