// Retrieval over SQLite FTS5, in two steps:
// 1. bm25() with column weights (heading path over title over text) finds RERANK_DEPTH chunks
//    holding any of the question's topic words (OR: a chunk lacking one word may still answer).
// 2. They are reranked by what bm25 does not see: bm25's score is scaled by the share of the
//    question's weight (its rare words count most) that stands together in an answer-sized
//    window (passage.ts), and lifted when the section's heading path names the question.
// A follow-up is searched with the previous question's words too: lightly, then, when that
// finds nothing to trust, weighed as its own.
//
// Chunks and their index rows live in the database (chunk-store.ts), so nothing is built at
// start and every process on the same file searches the same index. A search is scoped in the
// MATCH (scope token c<chatbot> or s<source>), or, for a chatbot holding most of the table,
// by reading its rows from an unscoped search (cheaper than a scope token on every row).
import type { ServiceDb } from '../db/open.js';
import { inTransaction } from '../../sqlite.js';
import { ChunkStore, prepareText, scopeOfChatbot, scopeOfSource } from './chunk-store.js';
import { trustedPassage } from './compose.js';
import { fuseWithNearest } from './fusion.js';
import { bestWindow, unitsOf, weighedIn, type Weights, windowText } from './passage.js';
import type { SemanticSearch } from './semantic-index.js';
import type { KnowledgeIndex, Passage, SearchOptions, SourceText } from './types.js';
import { DF_COUNTED, inText, quoted, WordCounts } from './word-counts.js';
import {
  cjkShare,
  hasCjk,
  isStopword,
  questionWordsOf,
  stemOf,
  stemsOf,
  termsOf as termsOfText,
} from './words.js';

/** Chunks bm25 hands to the rerank: enough to hold the answer (FTS5's top 3 holds it far more
 * often than its top 1), few enough to read each one in well under a millisecond. */
const RERANK_DEPTH = 20;
/** bm25() column weights: scope (never scored), title, heading path, text. A word in a
 * section's heading says what the section is about; in its text, it may be in passing. */
const RANK = 'bm25(chunks_fts, 0.0, 2.0, 3.0, 1.0)';
/** A previous question's words, first: each weighs this share of its rarity, and all together
 * at most this share of the question's own: enough to find the topic, never to outweigh what
 * the question itself asks, so a question that stands on its own is answered as asked. */
const LENT_WEIGHT = 0.3;
/** A previous question's words, when the question read so finds nothing to trust: as much as
 * its own. A follow-up ("any downsides?") names its topic only through the question before it,
 * as a plain search of both questions would read them. On the eval's dev sets, 0.3 and 0.6
 * alone left follow-ups declined although the answer was in retrieval's top 3. */
const FOLLOW_UP_WEIGHT = 1;
/**
 * The share of a chunk's score that follows bm25 (the rest is the question's coverage): half.
 * bm25 knows term frequency and section length, but its idf falls to nothing for a word in
 * half the chunks, which in a small chatbot (ten Q&A pairs) is most words; coverage's idf
 * does not.
 */
const BM25_SHARE = 0.5;
/**
 * The share of a chunk's score that follows how much of it is written in the question's
 * script (CJK or not): asked in English, the English README answers before its Chinese
 * translation, and the other way round; a chunk in the other script can still answer.
 */
const SCRIPT_SHARE = 0.5;
/** How much a heading path naming the question lifts a chunk (at most 1.5×): a section
 * titled with the question's words, and little else, is about it. */
const HEADING_WEIGHT = 0.5;

interface Row {
  id: number;
  position: number;
  section: string | null;
  text: string;
  uuid: string;
  title: string;
  type: string;
  file_name: string;
  link: string | null;
  chatbot_id: number;
  /** bm25 score, negated: higher is better. */
  bm25: number;
}

/** A question term: its stem (what coverage matches), the word FTS5 is asked for, its weight. */
interface Term {
  stem: string;
  word: string;
  weight: number;
  /** Chunks holding it, counted up to DF_COUNTED. */
  df: number;
}

/** Whether a word in `df` of `total` chunks tells them apart: some hold it, most do not
 * (bm25's own idf is nothing for a word in half the chunks). */
const telling = (df: number, total: number) => df > 0 && df <= total / 2;

/**
 * How well a heading path names the question: the F1 of the question's weight it holds
 * (recall) and the share of its own topic words that are the question's (precision), so
 * "Zod" beats "Zod › Objects › Extend" for "what is zod?".
 */
function headingMatch(weights: Weights, path: string): number {
  const words = new Set(termsOfText(path));
  if (words.size === 0) return 0;
  const recall = weighedIn(weights, words);
  const precision = [...words].filter((word) => weights.has(word)).length / words.size;
  return recall + precision === 0 ? 0 : (2 * recall * precision) / (recall + precision);
}

/** Whether the question's own words are all in a source's title: it asks about that document. */
function namesDocument(own: Term[], title: string): boolean {
  if (own.length === 0) return false;
  const stems = stemsOf(title);
  return own.every((t) => stems.has(t.stem));
}

/** The MATCH of the question's words (and the previous question's), OR-ed. */
const matchOf = (terms: Term[]): string => terms.map((t) => quoted(t.word)).join(' OR ');

/** `semantic`: nearest chunks by embeddings, fused with bm25's (off when not given). */
export function createKnowledgeIndex(db: ServiceDb, semantic?: SemanticSearch): KnowledgeIndex {
  const chunks = new ChunkStore(db);
  const rowColumns = `c.id, c.position, c.section, c.text, s.uuid, s.title, s.type, s.file_name,
    s.link, s.chatbot_id FROM chunks c JOIN sources s ON s.id = c.source_id`;
  const statements = {
    source: db.prepare<[string], { id: number; chatbot_id: number; title: string }>(
      'SELECT id, chatbot_id, title FROM sources WHERE uuid = ?',
    ),
    retitle: db.prepare<[string, number]>('UPDATE sources SET title = ? WHERE id = ?'),
    chatbot: db.prepare<[string], { id: number }>('SELECT id FROM chatbots WHERE uuid = ?'),
    chunksOf: db.prepare<[number], { n: number | null }>(
      'SELECT sum(chunk_count) AS n FROM sources WHERE chatbot_id = ?',
    ),
    sourcesOf: db.prepare<[number, string], { id: number }>(
      'SELECT id FROM sources WHERE chatbot_id = ? AND uuid IN (SELECT value FROM json_each(?))',
    ),
    rescore: db.prepare<[string, string], { id: number; score: number }>(
      `SELECT rowid AS id, -${RANK} AS score FROM chunks_fts WHERE chunks_fts MATCH ?
       AND rowid IN (SELECT value FROM json_each(?))`,
    ),
    hits: db.prepare<[string, number], { id: number; score: number }>(
      `SELECT rowid AS id, -${RANK} AS score FROM chunks_fts WHERE chunks_fts MATCH ?
       ORDER BY ${RANK} LIMIT ?`,
    ),
    // Chunks holding only common words, unranked: bm25() first counts every chunk holding each
    // word (a word in 400,000 chunks costs 50 ms there), and its idf tells such words apart
    // little; the rerank orders what this finds.
    holding: db.prepare<[string, number], { id: number; score: number }>(
      'SELECT rowid AS id, 0 AS score FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?',
    ),
    rows: db.prepare<[string], Omit<Row, 'bm25'>>(
      `SELECT ${rowColumns} WHERE c.id IN (SELECT value FROM json_each(?))`,
    ),
    total: db.prepare<[], { n: number | null }>('SELECT max(id) AS n FROM chunks'),
    leads: db.prepare<[string], { id: number }>(
      `SELECT c.id FROM chunks c JOIN sources s ON s.id = c.source_id
       WHERE c.position = 0 AND s.uuid IN (SELECT value FROM json_each(?))`,
    ),
  };
  const wordCounts = new WordCounts(db);
  const dfOf = (word: string) => wordCounts.dfOf(word);

  /** Inverse document frequency, smoothed: a word in no chunk weighs like one in half a chunk. */
  const idf = (df: number, total: number) => Math.log(1 + total / (df + 0.5));

  function termsOf(query: string, weight: number, total: number, skip: Set<string>): Term[] {
    const terms: Term[] = [];
    const words = questionWordsOf(query);
    // A question made only of common words ("what does it say about opens at nine?") is
    // searched by those of them that tell chunks apart: the list is a default, not a reason
    // to ignore a question.
    const topical = words.some(({ word }) => !isStopword(word));
    for (const { word, share } of words) {
      if (topical && isStopword(word)) continue;
      if (!topical && !telling(dfOf(word), total)) continue;
      const known = wordCounts.spelled(word);
      const stem = stemOf(known.word);
      if (skip.has(stem)) continue;
      skip.add(stem);
      const termWeight = weight * share * idf(known.df, total);
      terms.push({ stem, word: known.word, weight: termWeight, df: known.df });
    }
    return terms;
  }

  /**
   * The chunks bm25 ranks best for the words, found by the cheapest search that finds enough.
   * FTS5 computes bm25 for every chunk a query matches, so a query costs the rows its words
   * reach: the rarest words together first (FTS5 intersects their lists), dropping the
   * commonest one at a time while fewer than RERANK_DEPTH chunks hold them all; then the
   * rarest words OR-ed, as many as reach at most DF_COUNTED chunks. Common words wait for the
   * rerank unless the question has no other.
   */
  function candidates(
    chatbot: { id: number; chunks: number | null },
    terms: Term[],
    options: SearchOptions,
    total: number,
  ): Row[] {
    let scope = `scope : ${scopeOfChatbot(chatbot.id)}`;
    if (options.sourceUuids !== undefined) {
      const ids = statements.sourcesOf.all(chatbot.id, JSON.stringify(options.sourceUuids));
      if (ids.length === 0) return [];
      scope = `scope : (${ids.map((row) => scopeOfSource(row.id)).join(' OR ')})`;
    }
    // A chatbot holding most of the table: its scope token costs more than reading its rows.
    const dominant = options.sourceUuids === undefined && (chatbot.chunks ?? 0) > total / 2;
    // Rarest first; the common words wait unless there is nothing else.
    const ordered = [...terms].sort((a, b) => a.df - b.df);
    const anyRare = ordered.some((t) => t.df < DF_COUNTED);
    const rare = anyRare ? ordered.filter((t) => t.df < DF_COUNTED) : ordered;
    const hits = anyRare ? statements.hits : statements.holding;
    // `least`: fewer rows than this are of no use, and are not read (only counted).
    const search = (words: string, least = 0): Row[] => {
      const match = `(${inText(words)})`;
      if (!dominant) {
        const found = hits.all(`${scope} AND ${match}`, RERANK_DEPTH);
        return found.length < least ? [] : rowsOf(found);
      }
      const unscoped = hits.all(match, 2 * RERANK_DEPTH);
      if (unscoped.length < least) return []; // the chatbot's share of them is fewer still
      const mine = rowsOf(unscoped).filter((row) => row.chatbot_id === chatbot.id);
      if (mine.length >= RERANK_DEPTH || unscoped.length < 2 * RERANK_DEPTH)
        return mine.slice(0, RERANK_DEPTH);
      return rowsOf(hits.all(`${scope} AND ${match}`, RERANK_DEPTH));
    };
    // Every rung holds the rarest word, so none finds more chunks than it is in.
    const rungs = (rare[0]?.df ?? 0) >= RERANK_DEPTH ? rare.length : 1;
    for (let k = rungs; k >= 2; k--) {
      const every = search(
        rare
          .slice(0, k)
          .map((t) => quoted(t.word))
          .join(' AND '),
        RERANK_DEPTH,
      );
      if (every.length >= RERANK_DEPTH) return every;
    }
    const batch: Term[] = [];
    let rows = 0;
    for (const term of rare) {
      if (batch.length > 0 && rows + term.df > DF_COUNTED) break;
      batch.push(term);
      rows += term.df;
    }
    return search(matchOf(batch));
  }

  /**
   * The candidates, with the opening chunk of each document among them whose title names the
   * question ("what is keyv?" of keyv's README): bm25 ranks the chunks that say the name most
   * often and most briefly, while the document says what it is at its start. The rerank weighs
   * it as any other chunk (a lift for leads lost answers on the dev sets).
   */
  function withLeads(rows: Row[], own: Term[]): Row[] {
    // Each document's title read once, however many of its chunks were found.
    const titles = new Map(rows.map((row) => [row.uuid, row.title]));
    const named = [...titles]
      .filter(([, title]) => namesDocument(own, title))
      .map(([uuid]) => uuid);
    if (named.length === 0) return rows;
    const have = new Set(rows.map((row) => row.id));
    const leads = statements.leads.all(JSON.stringify(named)).filter((lead) => !have.has(lead.id));
    if (leads.length === 0) return rows;
    return [...rows, ...ownBm25(rowsOf(leads.map(({ id }) => ({ id, score: 0 }))), own)];
  }

  function ownBm25(rows: Row[], own: Term[]): Row[] {
    const ids = JSON.stringify(rows.map((row) => row.id));
    const scores = new Map(
      statements.rescore.all(inText(matchOf(own)), ids).map((hit) => [hit.id, hit.score]),
    );
    return rows.map((row) => ({ ...row, bm25: scores.get(row.id) ?? 0 }));
  }

  function rowsOf(hits: { id: number; score: number }[]): Row[] {
    const ids = JSON.stringify(hits.map((hit) => hit.id));
    const rows = new Map(statements.rows.all(ids).map((row) => [row.id, row]));
    return hits.flatMap(({ id, score }) => {
      const row = rows.get(id);
      return row === undefined ? [] : [{ ...row, bm25: score }];
    });
  }

  /** A chatbot's chunk count (summed over its sources), kept until the table grows again: it
   * only picks the cheaper search, so a count stale after a deletion costs nothing but time. */
  const counted = new Map<number, { total: number; chunks: number }>();
  function chunksOf(chatbotId: number, total: number): number {
    const known = counted.get(chatbotId);
    if (known?.total === total) return known.chunks;
    const chunks = statements.chunksOf.get(chatbotId)?.n ?? 0;
    counted.set(chatbotId, { total, chunks });
    return chunks;
  }

  function search(
    chatbotUuid: string,
    query: string,
    options: SearchOptions,
    nearest: number[] | undefined,
    previousWeight: number,
  ): Passage[] {
    const bot = statements.chatbot.get(chatbotUuid);
    if (bot === undefined) return [];
    wordCounts.forgetIfChanged();
    const total = Math.max(1, statements.total.get()?.n ?? 1);
    const chatbot = { id: bot.id, chunks: chunksOf(bot.id, total) };
    const seen = new Set<string>();
    const own = termsOf(query, 1, total, seen);
    const previous = termsOf(options.previous?.query ?? '', previousWeight, total, seen);
    // All together, the previous question's words weigh at most previousWeight of the question's.
    const ownWeight = own.reduce((sum, t) => sum + t.weight, 0);
    const lentWeight = previous.reduce((sum, t) => sum + t.weight, 0);
    const scale = own.length === 0 ? 1 : Math.min(1, (previousWeight * ownWeight) / lentWeight);
    const terms = [...own, ...previous.map((t) => ({ ...t, weight: t.weight * scale }))];
    if (terms.length === 0) return [];
    const weights: Weights = new Map(terms.map((t) => [t.stem, t.weight]));
    const asked: Weights | undefined =
      previous.length === 0 ? undefined : new Map(own.map((t) => [t.stem, t.weight]));
    const found = withLeads(candidates(chatbot, terms, options, total), own);
    // bm25 of the question's own words: the previous question's helped find the candidates,
    // but bm25 cannot weigh them less, so they take no part in it.
    const lexical = own.length === 0 || previous.length === 0 ? found : ownBm25(found, own);
    // With embeddings, the nearest chunks join by rank fusion; the rerank reads the fused score.
    const rows = fuseWithNearest(
      lexical,
      nearest,
      (ids) => rowsOf(ids.map((id) => ({ id, score: 0 }))),
      RERANK_DEPTH,
    );
    const topBm25 = Math.max(...rows.map((row) => row.bm25), Number.MIN_VALUE);
    const cited = new Set(options.previous?.sources ?? []);
    const asksInCjk = hasCjk(query); // one who writes CJK at all reads it
    // Each chunk's score is bounded by the share of the question its whole text holds (no
    // window holds more), so the windows are read best bound first, until no unread chunk can
    // reach the top `limit`: the same passages, without reading most chunks' sentences.
    const bounded = rows
      .map((row) => {
        const heading = stemsOf(`${row.title}\n${row.section ?? ''}`);
        const cjk = cjkShare(row.text);
        const inScript = asksInCjk ? cjk : 1 - cjk;
        // bm25's rank, times what it cannot see: the share of the question the best window
        // holds together, and a heading that names the question.
        const factor =
          (1 - BM25_SHARE + BM25_SHARE * (row.bm25 / topBm25)) *
          (1 - SCRIPT_SHARE + SCRIPT_SHARE * inScript) *
          (1 + HEADING_WEIGHT * headingMatch(weights, row.section ?? row.title));
        const tie = cited.has(row.uuid) ? Number.EPSILON : 0; // the source the last answer cited
        const bound = factor * weighedIn(weights, heading, stemsOf(row.text)) + tie;
        return { row, heading, factor, tie, bound };
      })
      .sort((a, b) => b.bound - a.bound);
    const limit = options.limit ?? 5;
    const passages: Passage[] = [];
    for (const { row, heading, factor, tie, bound } of bounded) {
      if (passages.length >= limit && bound < passages[limit - 1]!.score) break;
      const units = unitsOf(row.text);
      const window = bestWindow(units, weights, heading);
      const passage: Passage = {
        sourceUuid: row.uuid,
        title: row.title,
        fileName: row.file_name,
        type: row.type,
        chunkIndex: row.position,
        text: row.text,
        score: factor * window.coverage + tie,
        coverage: weighedIn(weights, heading, ...units.map((unit) => unit.stems)),
        window: windowText(window.units),
      };
      if (asked !== undefined) {
        const held = window.units.map((unit) => unit.stems);
        passage.askedScore = factor * weighedIn(asked, heading, ...held) + tie;
      }
      if (row.link !== null) passage.link = row.link;
      if (row.section !== null) passage.section = row.section;
      passages.push(passage);
      passages.sort((a, b) => b.score - a.score);
    }
    return passages.slice(0, limit);
  }

  return {
    async add(source: SourceText) {
      const prepared = prepareText(source.text);
      inTransaction(db, () => {
        const row = statements.source.get(source.uuid);
        if (row === undefined) throw new Error(`no data source ${source.uuid} to index`);
        chunks.replace(
          { sourceId: row.id, chatbotId: row.chatbot_id, title: row.title },
          prepared.chunks,
        );
      });
      return { tokens: prepared.tokens, chunks: prepared.chunks.length };
    },

    async rename(sourceUuid: string, title: string) {
      inTransaction(db, () => {
        const row = statements.source.get(sourceUuid);
        if (row === undefined) return; // nothing stored, nothing to find it by
        statements.retitle.run(title, row.id);
        chunks.retitle({ sourceId: row.id, chatbotId: row.chatbot_id, title });
      });
    },

    async search(chatbotUuid, query, options = {}) {
      const nearest = await semantic?.nearest(chatbotUuid, query, options.sourceUuids);
      const lent = search(chatbotUuid, query, options, nearest, LENT_WEIGHT);
      if (options.previous === undefined || trustedPassage(lent) !== undefined) return lent;
      return search(chatbotUuid, query, options, nearest, FOLLOW_UP_WEIGHT);
    },

    async close() {},
  };
}
