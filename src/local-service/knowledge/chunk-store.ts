// Writing a source's chunks: the rows of `chunks` (the text, the section each sits in) and
// their FTS5 rows in `chunks_fts` (scope, title, headings, text), under the same rowid.
// Callers run these inside their transaction, so a source and its chunks change together.
import type { ServiceDb } from '../db/open.js';
import { type CutChunk, countTokens, cutChunks } from './chunk.js';

export interface PreparedChunk {
  text: string;
  /** The heading over a chunk that starts inside a section. */
  section?: string;
  /** The headings inside the chunk. */
  headings: string[];
}

/** A source's text, cut and ready to store: done before the transaction, outside any lock. */
export interface PreparedText {
  chunks: PreparedChunk[];
  tokens: number;
}

/** For each chunk: the nearest heading above it when it does not open with one; its headings. */
function sectionsOf(chunks: CutChunk[]): PreparedChunk[] {
  let current: string | undefined;
  return chunks.map(({ text, headings, opensWithHeading }) => {
    const section = opensWithHeading ? undefined : current;
    if (headings.length > 0) current = headings.at(-1);
    return { text, ...(section && { section }), headings };
  });
}

export function prepareText(text: string): PreparedText {
  return { chunks: sectionsOf(cutChunks(text)), tokens: countTokens(text) };
}

/** The words a chunk is found by besides its text: its section's heading and its own. */
const headingText = (chunk: PreparedChunk): string =>
  [...(chunk.section === undefined ? [] : [chunk.section]), ...chunk.headings].join('\n');

export const scopeOfChatbot = (chatbotId: number) => `c${chatbotId}`;
export const scopeOfSource = (sourceId: number) => `s${sourceId}`;

export interface ChunkOwner {
  sourceId: number;
  chatbotId: number;
  title: string;
}

export class ChunkStore {
  private readonly statements;

  constructor(db: ServiceDb) {
    this.statements = {
      ids: db.prepare<[number], { id: number }>('SELECT id FROM chunks WHERE source_id = ?'),
      rows: db.prepare<
        [number],
        { id: number; section: string | null; headings: string; text: string }
      >('SELECT id, section, headings, text FROM chunks WHERE source_id = ? ORDER BY position'),
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

  /** Replaces the source's chunks (and their index rows) with these. In a transaction. */
  replace(owner: ChunkOwner, chunks: PreparedChunk[]): void {
    const s = this.statements;
    for (const { id } of s.ids.all(owner.sourceId)) s.unindex.run(id);
    s.drop.run(owner.sourceId);
    const scope = this.scope(owner);
    chunks.forEach((chunk, position) => {
      const headings = headingText(chunk);
      const { lastInsertRowid } = s.insert.run(
        owner.sourceId,
        position,
        chunk.section ?? null,
        JSON.stringify(chunk.headings),
        chunk.text,
      );
      s.index.run(lastInsertRowid, scope, owner.title, headings, chunk.text);
    });
    s.count.run(chunks.length, owner.sourceId);
  }

  /** Indexes the source's chunks again under a new title. In a transaction. */
  retitle(owner: ChunkOwner): void {
    const s = this.statements;
    const scope = this.scope(owner);
    for (const row of s.rows.all(owner.sourceId)) {
      const chunk: PreparedChunk = {
        text: row.text,
        ...(row.section === null ? {} : { section: row.section }),
        headings: JSON.parse(row.headings) as string[],
      };
      s.unindex.run(row.id);
      s.index.run(row.id, scope, owner.title, headingText(chunk), row.text);
    }
  }
}
