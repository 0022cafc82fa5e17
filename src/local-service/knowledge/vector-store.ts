// Chunk vectors in the service's SQLite, for the optional semantic retrieval (semantic-index.ts).
//
// A plain table, one row per chunk: the vector is a BLOB of little-endian float32 (sqlite-vec's
// format), scaled to length 1, and found by a scan of the chatbot's rows ordered by sqlite-vec's
// vec_distance_cosine(), in C. Where sqlite-vec's binary cannot load (a platform it does not
// ship, such as musl Linux), the same scan runs in JavaScript, about 5× slower. Not a `vec0`
// virtual table: that needs the extension loaded in every process and tool that deletes
// chunks, while this table's rows go with their chunk by a foreign key (ON DELETE CASCADE) in
// any process, embeddings on or off.
//
// The tables are created here, when embeddings are first turned on, not by a migration: a
// store that never used them stays as it was. `vector_space` records the model the vectors
// came from (a new model makes the old vectors meaningless, so they are dropped) and their
// size; `vector_errors` the sources whose embedding failed, and why, to be tried again.
import { load as loadSqliteVec } from 'sqlite-vec';
import type { ServiceDb } from '../db/open.js';
import { inTransaction } from '../../sqlite.js';

const TABLES = `
  CREATE TABLE IF NOT EXISTS chunk_vectors (
    chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    chatbot_id INTEGER NOT NULL,
    source_id INTEGER NOT NULL,
    vector BLOB NOT NULL
  );
  CREATE INDEX IF NOT EXISTS chunk_vectors_by_chatbot ON chunk_vectors(chatbot_id);
  CREATE TABLE IF NOT EXISTS vector_space (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    model TEXT NOT NULL,
    dimensions INTEGER
  );
  CREATE TABLE IF NOT EXISTS vector_errors (
    source_id INTEGER PRIMARY KEY REFERENCES sources(id) ON DELETE CASCADE,
    message TEXT NOT NULL,
    failed_at INTEGER NOT NULL
  );
`;

/** A chunk waiting for its vector: what is embedded is its heading path and its text. */
export interface PendingChunk {
  id: number;
  text: string;
  section: string | null;
}

export interface Neighbour {
  chunkId: number;
  /** Cosine similarity to the question, -1..1. */
  similarity: number;
}

/** The vector scaled to length 1; undefined for the zero vector (it points nowhere). */
export function unitVector(vector: Float32Array): Float32Array | undefined {
  let sum = 0;
  for (const x of vector) sum += x * x;
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const norm = Math.sqrt(sum);
  return vector.map((x) => x / norm);
}

const blobOf = (vector: Float32Array) =>
  Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/** The float32 view of a stored BLOB (copied when SQLite's buffer is not 4-byte aligned). */
function vectorOf(blob: Uint8Array): Float32Array {
  const aligned = blob.byteOffset % 4 === 0 ? blob : Buffer.from(blob);
  return new Float32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
}

interface NearestParams {
  chatbot: number;
  /** The source ids searched, as a JSON list; null for all. */
  only: string | null;
  vector: Buffer;
  depth: number;
}

/** Loads sqlite-vec into the connection; undefined when it did, else why it could not. */
function loadedSqliteVec(db: ServiceDb): string | undefined {
  try {
    // Turned on for this load only: SQL's load_extension() stays off.
    db.enableLoadExtension(true);
    try {
      loadSqliteVec(db);
    } finally {
      db.enableLoadExtension(false);
    }
    db.prepare('SELECT vec_version()').get();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export class VectorStore {
  private readonly q;
  /** Why sqlite-vec is not used (the scan runs in JavaScript); undefined when it is. */
  readonly withoutSqliteVec: string | undefined;
  private readonly nearestInSql;

  /** `sqliteVec: false` compares in JavaScript even where sqlite-vec loads (tests). */
  constructor(
    private readonly db: ServiceDb,
    readonly model: string,
    options: { sqliteVec?: boolean } = {},
  ) {
    db.exec(TABLES);
    this.withoutSqliteVec = options.sqliteVec === false ? 'turned off' : loadedSqliteVec(db);
    this.nearestInSql =
      this.withoutSqliteVec === undefined
        ? db.prepare<[NearestParams], { chunk_id: number; distance: number }>(
            `SELECT chunk_id, vec_distance_cosine(vector, @vector) AS distance FROM chunk_vectors
             WHERE chatbot_id = @chatbot
               AND (@only IS NULL OR source_id IN (SELECT value FROM json_each(@only)))
             ORDER BY distance LIMIT @depth`,
          )
        : undefined;
    this.q = {
      space: db.prepare<[], { model: string; dimensions: number | null }>(
        'SELECT model, dimensions FROM vector_space WHERE id = 1',
      ),
      setSpace: db.prepare<[string, number | null]>(
        'INSERT OR REPLACE INTO vector_space (id, model, dimensions) VALUES (1, ?, ?)',
      ),
      dropVectors: db.prepare('DELETE FROM chunk_vectors'),
      pending: db.prepare<[number], PendingChunk>(
        `SELECT c.id, c.text, c.section FROM chunks c WHERE c.source_id = ?
         AND NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.chunk_id = c.id)
         ORDER BY c.position`,
      ),
      // Only onto the chunk that was embedded: a source written again meanwhile may have reused
      // the id for other text.
      put: db.prepare<[Buffer, number, string]>(
        `INSERT OR REPLACE INTO chunk_vectors (chunk_id, chatbot_id, source_id, vector)
         SELECT c.id, s.chatbot_id, c.source_id, ? FROM chunks c JOIN sources s ON s.id = c.source_id
         WHERE c.id = ? AND c.text = ?`,
      ),
      sources: db.prepare<[], { id: number }>(
        "SELECT id FROM sources WHERE status = 'success' ORDER BY id",
      ),
      failed: db.prepare<[], { source_id: number }>(
        'SELECT source_id FROM vector_errors ORDER BY failed_at',
      ),
      error: db.prepare<[number], { message: string }>(
        'SELECT message FROM vector_errors WHERE source_id = ?',
      ),
      fail: db.prepare<[string, number, number]>(
        `INSERT OR REPLACE INTO vector_errors (source_id, message, failed_at)
         SELECT id, ?, ? FROM sources WHERE id = ?`,
      ),
      clear: db.prepare<[number]>('DELETE FROM vector_errors WHERE source_id = ?'),
      any: db.prepare<[number], { one: number }>(
        'SELECT 1 AS one FROM chunk_vectors WHERE chatbot_id = ? LIMIT 1',
      ),
      scan: db.prepare<[number], { chunk_id: number; source_id: number; vector: Uint8Array }>(
        'SELECT chunk_id, source_id, vector FROM chunk_vectors WHERE chatbot_id = ?',
      ),
    };
    // Vectors of another model are not comparable with this one's: they are made again.
    inTransaction(db, () => {
      const space = this.q.space.get();
      if (space?.model === model) return;
      this.q.dropVectors.run();
      this.q.setSpace.run(model, null);
    });
  }

  /** The vectors' size, once the first ones are stored. */
  dimensions(): number | undefined {
    return this.q.space.get()?.dimensions ?? undefined;
  }

  /** The source's chunks that have no vector yet, in order. */
  pending(sourceId: number): PendingChunk[] {
    return this.q.pending.all(sourceId);
  }

  /** Every source that may have chunks without vectors (for the sweep at start). */
  sourceIds(): number[] {
    return this.q.sources.all().map((row) => row.id);
  }

  /** Sources whose embedding failed, oldest failure first. */
  failedSourceIds(): number[] {
    return this.q.failed.all().map((row) => row.source_id);
  }

  /** Why the source's chunks are not embedded, if they failed. */
  errorOf(sourceId: number): string | undefined {
    return this.q.error.get(sourceId)?.message;
  }

  /**
   * Stores the chunks' vectors (scaled to length 1) in one transaction. Throws, storing nothing,
   * when their size differs from the stored vectors' or one is the zero vector.
   */
  put(chunks: readonly PendingChunk[], vectors: readonly Float32Array[]): void {
    const units = vectors.map((vector, i) => {
      const unit = unitVector(vector);
      if (unit === undefined) throw new RangeError(`vector ${i} is zero: it points nowhere`);
      return unit;
    });
    inTransaction(this.db, () => {
      const size = units[0]?.length;
      if (size === undefined) return;
      const known = this.dimensions();
      if (known !== undefined && known !== size)
        throw new RangeError(
          `vectors of ${size} dimensions; the stored ones have ${known} (for another model, set EMBEDDINGS_MODEL to its name)`,
        );
      if (known === undefined) this.q.setSpace.run(this.model, size);
      chunks.forEach((chunk, i) => this.q.put.run(blobOf(units[i]!), chunk.id, chunk.text));
    });
  }

  recordError(sourceId: number, message: string, atMs: number): void {
    this.q.fail.run(message, atMs, sourceId);
  }

  clearError(sourceId: number): void {
    this.q.clear.run(sourceId);
  }

  /** Whether any chunk of the chatbot has a vector (else the question need not be embedded). */
  hasVectors(chatbotId: number): boolean {
    return this.q.any.get(chatbotId) !== undefined;
  }

  /**
   * The chatbot's chunks most similar to the question's vector, best first: a scan of its
   * vectors (see the header), limited to `sourceIds` when given.
   */
  nearest(
    chatbotId: number,
    question: Float32Array,
    depth: number,
    sourceIds?: ReadonlySet<number>,
  ): Neighbour[] {
    const unit = unitVector(question);
    if (unit === undefined || unit.length !== this.dimensions()) return [];
    if (this.nearestInSql !== undefined) {
      const only = sourceIds === undefined ? null : JSON.stringify([...sourceIds]);
      return this.nearestInSql
        .all({ chatbot: chatbotId, only, vector: blobOf(unit), depth })
        .map((row) => ({ chunkId: row.chunk_id, similarity: 1 - row.distance }));
    }
    const best: Neighbour[] = [];
    for (const row of this.q.scan.iterate(chatbotId)) {
      const { chunk_id: chunkId, source_id: sourceId, vector: blob } = row;
      if (sourceIds !== undefined && !sourceIds.has(sourceId)) continue;
      const vector = vectorOf(blob);
      let similarity = 0;
      for (let i = 0; i < unit.length; i++) similarity += unit[i]! * vector[i]!;
      if (best.length === depth && similarity <= best[depth - 1]!.similarity) continue;
      const below = best.findIndex((n) => n.similarity < similarity);
      best.splice(below === -1 ? best.length : below, 0, { chunkId, similarity });
      if (best.length > depth) best.pop();
    }
    return best;
  }
}
