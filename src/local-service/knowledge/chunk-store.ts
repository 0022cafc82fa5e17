// Writing a source's chunks: the rows of `chunks` (the text, its section's heading path) and
// their FTS5 rows in `chunks_fts` (scope, title, heading path, text), under the same rowid.
// Callers run these inside their transaction, so a source and its chunks change together.
import type { ServiceDb } from '../db/open.js';
import { chunksWritten } from './chunk-events.js';
import { countTokens, cutChunks } from './chunk.js';
import { indexedText } from './words.js';

export interface PreparedChunk {
  text: string;
  /** The headings above the chunk, outermost first: its section's path. */
  headings: string[];
}

/** A source's text, cut and ready to store: done before the transaction, outside any lock. */
export interface PreparedText {
  chunks: PreparedChunk[];
  tokens: number;
}

export function prepareText(text: string): PreparedText {
  return { chunks: cutChunks(text), tokens: countTokens(text) };
}

/** How a heading path is shown and stored: "Options › threshold". */
const sectionOf = (headings: readonly string[]): string => headings.join(' › ');

export const scopeOfChatbot = (chatbotId: number) => `c${chatbotId}`;
export const scopeOfSource = (sourceId: number) => `s${sourceId}`;

export interface ChunkOwner {
  sourceId: number;
  chatbotId: number;
  title: string;
}

export class ChunkStore {
  private readonly statements;

  constructor(private readonly db: ServiceDb) {
    this.statements = {
      ids: db.prepare<[number], { id: number }>('SELECT id FROM chunks WHERE source_id = ?'),
      rows: db.prepare<[number], { id: number; headings: string; text: string }>(
        'SELECT id, headings, text FROM chunks WHERE source_id = ? ORDER BY position',
      ),
      unindex: db.prepare<[number]>('DELETE FROM chunks_fts WHERE rowid = ?'),
      drop: db.prepare<[number]>('DELETE FROM chunks WHERE source_id = ?'),
      count: db.prepare<[number, number]>('UPDATE sources SET chunk_count = ? WHERE id = ?'),
      insert: db.prepare<[number, number, string | null, string, string]>(
        'INSERT INTO chunks (source_id, position, section, headings, text) VALUES (?, ?, ?, ?, ?)',
      ),
      index: db.prepare<[number | bigint, string, string, string, string]>(
        'INSERT INTO chunks_fts (rowid, scope, title, heading, text) VALUES (?, ?, ?, ?, ?)',
      ),
    };
  }

  private scope(owner: ChunkOwner): string {
    return `${scopeOfChatbot(owner.chatbotId)} ${scopeOfSource(owner.sourceId)}`;
  }

  /**
   * The FTS5 row of a chunk. Its own heading is the heading column (weighted most: it names
   * what the section is about). The headings above it are not indexed again for every section
   * under them: repeated in each, they would outweigh the one section they head (the rerank
   * still reads the whole path). CJK runs are cut into words (see indexedText).
   */
  private index(
    id: number | bigint,
    scope: string,
    title: string,
    headings: string[],
    text: string,
  ) {
    this.statements.index.run(
      id,
      scope,
      indexedText(title),
      indexedText(headings.at(-1) ?? ''),
      indexedText(text),
    );
  }

  /** Replaces the source's chunks (and their index rows) with these. In a transaction. */
  replace(owner: ChunkOwner, chunks: PreparedChunk[]): void {
    const s = this.statements;
    for (const { id } of s.ids.all(owner.sourceId)) s.unindex.run(id);
    s.drop.run(owner.sourceId);
    const scope = this.scope(owner);
    chunks.forEach((chunk, position) => {
      const section = sectionOf(chunk.headings);
      const { lastInsertRowid } = s.insert.run(
        owner.sourceId,
        position,
        section === '' ? null : section,
        JSON.stringify(chunk.headings),
        chunk.text,
      );
      this.index(lastInsertRowid, scope, owner.title, chunk.headings, chunk.text);
    });
    s.count.run(chunks.length, owner.sourceId);
    chunksWritten(this.db, owner.sourceId); // embeddings, when on (semantic-index.ts)
  }

  /** Indexes the source's chunks again under a new title. In a transaction. */
  retitle(owner: ChunkOwner): void {
    const s = this.statements;
    const scope = this.scope(owner);
    for (const row of s.rows.all(owner.sourceId)) {
      s.unindex.run(row.id);
      this.index(row.id, scope, owner.title, JSON.parse(row.headings) as string[], row.text);
    }
  }
}
