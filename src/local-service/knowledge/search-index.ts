// Retrieval over SQLite FTS5 (see fts-query.ts for how a question becomes a query).
//
// Chunks and their index rows live in the database beside the records (tables chunks and
// chunks_fts, written by chunk-store.ts), so nothing is built at start and every process on
// the same file searches the same index. A search is scoped in the MATCH itself: to the
// chatbot (scope token c<id>) or to the agent's sources (s<id> …).
import type { ServiceDb } from '../db/open.js';
import { ChunkStore, prepareText, scopeOfChatbot, scopeOfSource } from './chunk-store.js';
import { definitionSubject, titleNames } from './compose-shape.js';
import { blendWithTopic } from './follow-up.js';
import { type Clause, QueryPlanner, planSearch } from './fts-query.js';
import { termsOf } from './terms.js';
import type { KnowledgeIndex, Passage, SearchOptions, SourceText } from './types.js';

/** Column weights for bm25(): scope (never scored), title, headings, text. */
const RANK = 'bm25(chunks_fts, 0.0, 2.0, 4.0, 1.0)';
/** Candidates read per passage returned, for the heading re-rank below. */
const CANDIDATES_PER_PASSAGE = 4;
const MIN_CANDIDATES = 20;
/** What a section heading made only of the question's words adds to a passage's score. */
const HEADING_MATCH_BONUS = 0.5;

/**
 * Lifts passages whose section heading is about what was asked, by the share of the heading's
 * words the question holds. Why: FTS5's bm25 gives a word found in most chunks (a product's
 * own name in its docs) almost no weight, so "what is chatbridge?" cannot tell the page that
 * introduces it from a table that names it often; the heading "chatbridge" can.
 */
function byHeadingMatch(passages: Passage[], query: string): Passage[] {
  const asked = new Set(termsOf(query));
  return passages
    .map((passage) => {
      const heading = termsOf(passage.section ?? passage.text.match(/^#{1,6}\s+(.+)$/m)?.[1] ?? '');
      if (heading.length === 0) return passage;
      const share = heading.filter((term) => asked.has(term)).length / heading.length;
      return { ...passage, score: passage.score * (1 + HEADING_MATCH_BONUS * share) };
    })
    .sort((a, b) => b.score - a.score);
}

/**
 * For "what is X": the opening chunk of a source named X (its title holds X's words) joins the
 * passages, first. Why: a document about X says "X" in every chunk, so bm25 cannot tell its
 * introduction, where X is defined, from a changelog line that names it.
 */
function withOpening(
  passages: Passage[],
  query: string,
  openingOf: (sourceUuid: string) => Passage | undefined,
): Passage[] {
  const subject = definitionSubject(query);
  if (subject === undefined || passages.length === 0) return passages;
  const named = passages.find((passage) => titleNames(passage.title, subject));
  if (named === undefined) return passages;
  const rest = passages.filter((p) => p.sourceUuid !== named.sourceUuid || p.chunkIndex !== 0);
  const opening = openingOf(named.sourceUuid);
  if (opening === undefined) return passages;
  return [{ ...opening, score: passages[0]!.score }, ...rest].slice(0, passages.length);
}

/** At most this many words of earlier turns widen a follow-up's search. */
const MAX_CONTEXT_CLAUSES = 12;

interface SourceRow {
  id: number;
  chatbot_id: number;
  title: string;
}

/** Where a search looks: a MATCH on scope tokens, or (a chatbot owning most rows) a filter. */
interface Scope {
  match: string;
  /** The chatbot's id, when its rows are kept after an unscoped MATCH instead. */
  filter?: number;
}

/** A chunk found, with its row when it was already read. */
interface Hit {
  id: number;
  score: number;
  row?: HitRow;
}

interface HitRow {
  position: number;
  section: string | null;
  text: string;
  uuid: string;
  title: string;
  type: string;
  file_name: string;
  link: string | null;
  chatbot_id: number;
}

export function createKnowledgeIndex(db: ServiceDb): KnowledgeIndex {
  const chunks = new ChunkStore(db);
  const planner = new QueryPlanner(db);
  const statements = {
    source: db.prepare<[string], SourceRow>(
      'SELECT id, chatbot_id, title FROM sources WHERE uuid = ?',
    ),
    retitle: db.prepare<[string, number]>('UPDATE sources SET title = ? WHERE id = ?'),
    chatbot: db.prepare<[string], { id: number }>('SELECT id FROM chatbots WHERE uuid = ?'),
    sourcesOf: db.prepare<[number, string], { id: number }>(
      'SELECT id FROM sources WHERE chatbot_id = ? AND uuid IN (SELECT value FROM json_each(?))',
    ),
    hits: db.prepare<[string, number], { id: number; score: number }>(
      `SELECT rowid AS id, -${RANK} AS score FROM chunks_fts WHERE chunks_fts MATCH ?
       ORDER BY ${RANK} LIMIT ?`,
    ),
    opening: db.prepare<[string], { id: number }>(
      `SELECT c.id FROM chunks c JOIN sources s ON s.id = c.source_id
       WHERE s.uuid = ? AND c.position = 0`,
    ),
    passage: db.prepare<[number], HitRow>(
      `SELECT c.position, c.section, c.text, s.uuid, s.title, s.type, s.file_name, s.link,
         s.chatbot_id
       FROM chunks c JOIN sources s ON s.id = c.source_id WHERE c.id = ?`,
    ),
    exists: db.prepare<[string], { one: number }>(
      'SELECT 1 AS one FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1',
    ),
    chunksOf: db.prepare<[number], { n: number | null }>(
      'SELECT sum(chunk_count) AS n FROM sources WHERE chatbot_id = ?',
    ),
  };

  function sourceRow(uuid: string): SourceRow {
    const row = statements.source.get(uuid);
    if (row === undefined) throw new Error(`no data source ${uuid} to index`);
    return row;
  }

  function run(scope: Scope, body: string, limit: number): Hit[] {
    const match = `{title heading text} : (${body})`;
    if (scope.filter === undefined)
      return statements.hits.all(`${scope.match} AND ${match}`, limit);
    // The chatbot holds most of the table: its scope token would cost more than it saves.
    // Read twice as many rows unscoped and keep the chatbot's; scoped again if too few are.
    // Each row read for the filter travels with its hit, so it is not read again for the passage.
    const rows = statements.hits.all(match, 2 * limit);
    const mine = rows
      .map((hit): Hit => ({ ...hit, row: statements.passage.get(hit.id) }))
      .filter((hit) => hit.row?.chatbot_id === scope.filter);
    if (mine.length >= limit || rows.length < 2 * limit) {
      return mine.slice(0, limit);
    }
    return statements.hits.all(`${scope.match} AND ${match}`, limit);
  }

  /** Runs the plan's steps until one finds enough (see fts-query.ts); `wanted` rows at most. */
  function ranked(scope: Scope, own: Clause[], context: Clause[], limit: number, wanted: number) {
    let found: Hit[] = [];
    for (const step of planSearch(own, context, planner.totalChunks())) {
      found = run(scope, step.body, wanted);
      if (found.length >= (step.needsFull ? limit : 1)) return found;
    }
    return found;
  }

  function search(chatbotUuid: string, query: string, options: SearchOptions): Passage[] {
    const chatbot = statements.chatbot.get(chatbotUuid);
    if (chatbot === undefined) return [];
    let scope: Scope = { match: `scope : ${scopeOfChatbot(chatbot.id)}` };
    if (options.sourceUuids !== undefined) {
      const ids = statements.sourcesOf.all(chatbot.id, JSON.stringify(options.sourceUuids));
      if (ids.length === 0) return [];
      scope = { match: `scope : (${ids.map((row) => scopeOfSource(row.id)).join(' OR ')})` };
    } else if ((statements.chunksOf.get(chatbot.id)?.n ?? 0) > planner.totalChunks() / 2) {
      scope = { ...scope, filter: chatbot.id };
    }
    const inScope = (expr: string) =>
      statements.exists.get(`${scope.match} AND {title heading text} : (${expr})`) !== undefined;
    const dominant = scope.filter !== undefined;
    const own = planner.clauses(query, inScope, dominant);
    const ownExprs = new Set(own.map((clause) => clause.expr));
    const context = planner
      .clauses(options.context ?? '', inScope, dominant)
      .filter((clause) => !ownExprs.has(clause.expr));
    if (own.length === 0 && context.length === 0) return [];
    const limit = options.limit ?? 5;
    const wanted = Math.max(limit * CANDIDATES_PER_PASSAGE, MIN_CANDIDATES);
    const found = (lent: Clause[]) =>
      byHeadingMatch(passagesOf(ranked(scope, own, lent, limit, wanted)), query);
    if (context.length === 0 || own.length === 0) return found(context).slice(0, limit);
    // The topic's words only break near-ties: the question's own ranking leads (follow-up.ts).
    const alone = found([]);
    return blendWithTopic(
      alone,
      found(context.slice(0, MAX_CONTEXT_CLAUSES)),
      limit,
      alone.length >= wanted,
    );
  }

  function passagesOf(hits: Hit[]): Passage[] {
    return hits.flatMap(({ id, score, row: known }) => {
      const row = known ?? statements.passage.get(id);
      if (row === undefined) return [];
      const passage: Passage = {
        sourceUuid: row.uuid,
        title: row.title,
        fileName: row.file_name,
        type: row.type,
        chunkIndex: row.position,
        text: row.text,
        score,
      };
      if (row.link !== null) passage.link = row.link;
      if (row.section !== null) passage.section = row.section;
      return [passage];
    });
  }

  return {
    async add(source: SourceText) {
      const prepared = prepareText(source.text);
      db.transaction(() => {
        const row = sourceRow(source.uuid);
        chunks.replace(
          { sourceId: row.id, chatbotId: row.chatbot_id, title: row.title },
          prepared.chunks,
        );
      }).immediate();
      return { tokens: prepared.tokens, chunks: prepared.chunks.length };
    },

    async rename(sourceUuid: string, title: string) {
      db.transaction(() => {
        const row = statements.source.get(sourceUuid);
        if (row === undefined) return; // nothing stored, nothing to find it by
        statements.retitle.run(title, row.id);
        chunks.retitle({ sourceId: row.id, chatbotId: row.chatbot_id, title });
      }).immediate();
    },

    async search(chatbotUuid: string, query: string, options: SearchOptions = {}) {
      return withOpening(search(chatbotUuid, query, options), query, (uuid) => {
        const row = statements.opening.get(uuid);
        return row === undefined ? undefined : passagesOf([{ id: row.id, score: 0 }])[0];
      });
    },

    async close() {},
  };
}
