// Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each ranking gives an item
// 1 / (RRF_K + its rank), and the sums order the items. It reads ranks only, so bm25's scores
// and cosine similarities, which share no scale, are never compared; an item both rankings
// place well comes before one that only one of them finds.
//
// Used only when embeddings are on (semantic-index.ts): the bm25 candidates and the nearest
// chunks by vector are fused before the rerank (search-index.ts), which then reads the fused
// score where it read bm25's.

/**
 * The constant of the paper, which found it near-optimal across collections: large enough that
 * the first few ranks of one list do not outweigh agreement between the lists.
 */
export const RRF_K = 60;

/** Each item's fused score over rankings of ids (best first). */
export function reciprocalRankFusion(
  rankings: readonly (readonly number[])[],
  k = RRF_K,
): Map<number, number> {
  const fused = new Map<number, number>();
  for (const ranking of rankings)
    ranking.forEach((id, rank) => fused.set(id, (fused.get(id) ?? 0) + 1 / (k + rank + 1)));
  return fused;
}

/**
 * bm25's candidate rows fused with the nearest chunks (ids, best first): the rows of both,
 * best `depth` by fused score, each with that score in place of its bm25 score. Without
 * nearest chunks (embeddings off, or the question could not be embedded), the rows as given.
 */
export function fuseWithNearest<R extends { id: number; bm25: number }>(
  lexical: R[],
  nearest: readonly number[] | undefined,
  rowsOf: (ids: number[]) => R[],
  depth: number,
): R[] {
  if (nearest === undefined || nearest.length === 0) return lexical;
  const byBm25 = [...lexical].sort((a, b) => b.bm25 - a.bm25);
  const fused = reciprocalRankFusion([byBm25.map((row) => row.id), nearest]);
  const found = new Set(lexical.map((row) => row.id));
  return [...byBm25, ...rowsOf(nearest.filter((id) => !found.has(id)))]
    .map((row) => ({ ...row, bm25: fused.get(row.id) ?? 0 }))
    .sort((a, b) => b.bm25 - a.bm25)
    .slice(0, depth);
}
