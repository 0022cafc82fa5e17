// Optional semantic retrieval (EMBEDDINGS_URL): chunks are embedded after they are stored, the
// question when it is asked, and the chunks nearest the question join bm25's candidates by
// reciprocal rank fusion (fusion.ts, in search-index.ts). Off unless configured; nothing here
// runs then.
//
// A source is acknowledged and searchable by its words before any vector exists: embedding
// runs after the commit (chunk-events.ts), one source at a time, in batches (embeddings.ts).
// When the endpoint fails, the source keeps its text and its FTS5 rows; the reason is logged
// and kept in `vector_errors`, and the source is tried again every RETRY_MS and at each start
// (which also embeds whatever was stored while embeddings were off). At ask time the question
// gets a short deadline; past it, or on any error, the answer comes from bm25 alone.
import { setImmediate } from 'node:timers/promises';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import type { ServiceDb } from '../db/open.js';
import { onChunksWritten } from './chunk-events.js';
import {
  createEmbeddingsClient,
  EMBEDDINGS_TIMEOUTS,
  EMBED_BATCH,
  EmbeddingsError,
  type EmbeddingsClient,
  type EmbeddingsConfig,
} from './embeddings.js';
import { type PendingChunk, VectorStore } from './vector-store.js';

/** How often sources whose embedding failed are tried again: an endpoint back up is used soon. */
const RETRY_MS = 60_000;
/**
 * Nearest chunks fused with bm25's: as many as bm25 hands the rerank (RERANK_DEPTH), so
 * neither ranking outnumbers the other.
 */
const NEAREST_DEPTH = 20;

/** What retrieval asks of the semantic side (search-index.ts). */
export interface SemanticSearch {
  /** Chunk ids nearest the question, best first; undefined when there are none to use. */
  nearest(
    chatbotUuid: string,
    query: string,
    sourceUuids?: string[],
  ): Promise<number[] | undefined>;
}

export interface SemanticIndexOptions {
  logger?: Logger;
  now?: () => number;
  /** The question's deadline at ask time. Default 2 s. */
  questionTimeoutMs?: number;
  /** false: compare vectors in JavaScript even where sqlite-vec loads (tests). */
  sqliteVec?: boolean;
}

/** The text a chunk is embedded as: its heading path says what the section is about. */
const inputOf = (chunk: PendingChunk) =>
  chunk.section === null ? chunk.text : `${chunk.section}\n\n${chunk.text}`;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class SemanticIndex implements SemanticSearch {
  readonly store: VectorStore;
  private queue: Promise<void> = Promise.resolve();
  private readonly queued = new Set<number>();
  /** Questions being embedded now, by their text. */
  private readonly asking = new Map<string, Promise<Float32Array | undefined>>();
  private readonly stop = new AbortController();
  private readonly unlisten: () => void;
  private retry: NodeJS.Timeout | undefined;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly questionTimeoutMs: number;
  private readonly q;
  /** Questions that could not be embedded (answered from bm25 alone), and the last reason. */
  readonly questionFailures = { count: 0, last: undefined as string | undefined };

  constructor(
    db: ServiceDb,
    private readonly client: EmbeddingsClient,
    options: SemanticIndexOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.questionTimeoutMs = options.questionTimeoutMs ?? EMBEDDINGS_TIMEOUTS.questionMs;
    this.store = new VectorStore(db, client.model, { sqliteVec: options.sqliteVec });
    this.q = {
      chatbot: db.prepare<[string], { id: number }>('SELECT id FROM chatbots WHERE uuid = ?'),
      sourcesOf: db.prepare<[number, string], { id: number }>(
        'SELECT id FROM sources WHERE chatbot_id = ? AND uuid IN (SELECT value FROM json_each(?))',
      ),
      uuid: db.prepare<[number], { uuid: string }>('SELECT uuid FROM sources WHERE id = ?'),
    };
    // After the commit: the writer's transaction is synchronous, so a microtask runs after it.
    this.unlisten = onChunksWritten(db, (sourceId) =>
      queueMicrotask(() => this.schedule(sourceId)),
    );
  }

  /** Embeds what is waiting (stored while embeddings were off, or failed), and keeps retrying. */
  start(): void {
    const reason = this.store.withoutSqliteVec;
    if (reason !== undefined)
      this.logger.info(
        { reason },
        'semantic retrieval: sqlite-vec is not loaded, vectors are compared in JavaScript (slower)',
      );
    for (const sourceId of this.store.sourceIds()) this.schedule(sourceId);
    this.retry = setInterval(() => this.retryFailed(), RETRY_MS);
    this.retry.unref();
  }

  /** Tries again the sources whose embedding failed. */
  retryFailed(): void {
    for (const sourceId of this.store.failedSourceIds()) this.schedule(sourceId);
  }

  /** Queues a source's chunks for embedding (once, however often it is asked). */
  schedule(sourceId: number): void {
    if (this.queued.has(sourceId) || this.stop.signal.aborted) return;
    this.queued.add(sourceId);
    this.queue = this.queue.then(() => {
      this.queued.delete(sourceId); // written again while embedding: queued again
      return this.embedSource(sourceId);
    });
  }

  /** Resolves when every embedding queued so far (and any it queued) has ended. */
  async settled(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.queue;
      await current;
    } while (current !== this.queue);
  }

  private async embedSource(sourceId: number): Promise<void> {
    // Between sources, requests are served: the sweep at start may find thousands to look at.
    await setImmediate();
    if (this.stop.signal.aborted) return;
    try {
      const chunks = this.store.pending(sourceId);
      // Stored batch by batch: a failure half-way keeps what was embedded.
      for (let start = 0; start < chunks.length; start += EMBED_BATCH) {
        const batch = chunks.slice(start, start + EMBED_BATCH);
        const vectors = await this.client.embed(batch.map(inputOf), { signal: this.stop.signal });
        try {
          this.store.put(batch, vectors);
        } catch (error) {
          if (error instanceof RangeError) throw new EmbeddingsError(error.message);
          throw error;
        }
      }
      this.store.clearError(sourceId);
    } catch (error) {
      if (this.stop.signal.aborted) return; // closing: the next start takes it up
      const message = messageOf(error);
      this.store.recordError(sourceId, message, this.now());
      this.logger.warn(
        { source: this.q.uuid.get(sourceId)?.uuid, reason: message },
        'embedding a data source failed: it is searched by its words alone until it is embedded (tried again every minute)',
      );
    }
  }

  async nearest(
    chatbotUuid: string,
    query: string,
    sourceUuids?: string[],
  ): Promise<number[] | undefined> {
    const chatbot = this.q.chatbot.get(chatbotUuid);
    if (chatbot === undefined || query.trim() === '' || !this.store.hasVectors(chatbot.id))
      return undefined;
    const vector = await this.questionVector(query);
    if (vector === undefined) return undefined;
    const sourceIds =
      sourceUuids === undefined
        ? undefined
        : new Set(this.q.sourcesOf.all(chatbot.id, JSON.stringify(sourceUuids)).map((r) => r.id));
    return this.store
      .nearest(chatbot.id, vector, NEAREST_DEPTH, sourceIds)
      .map((neighbour) => neighbour.chunkId);
  }

  /**
   * The question's vector, or undefined (logged) when it cannot be had in time. The agents that
   * search one message at once (agent-router.ts) share one request.
   */
  private questionVector(query: string): Promise<Float32Array | undefined> {
    const asked = this.asking.get(query);
    if (asked !== undefined) return asked;
    const vector = this.embedQuestion(query);
    this.asking.set(query, vector);
    void vector.then(() => this.asking.delete(query));
    return vector;
  }

  private async embedQuestion(query: string): Promise<Float32Array | undefined> {
    try {
      const [vector] = await this.client.embed([query], {
        timeoutMs: this.questionTimeoutMs,
        signal: this.stop.signal,
      });
      const dimensions = this.store.dimensions();
      if (vector!.length !== dimensions)
        throw new EmbeddingsError(
          `the question's vector has ${vector!.length} dimensions; the stored ones have ${dimensions}`,
        );
      return vector;
    } catch (error) {
      const message = messageOf(error);
      this.questionFailures.count++;
      this.questionFailures.last = message;
      this.logger.warn(
        { reason: message },
        'embedding the question failed: it is answered from bm25 alone',
      );
      return undefined;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.retry);
    this.unlisten();
    this.stop.abort(new Error('service closing'));
    await this.settled().catch(() => undefined);
  }
}

/** The semantic index of a configured endpoint; undefined (semantic retrieval off) without one. */
export function semanticIndexOf(
  db: ServiceDb,
  config: EmbeddingsConfig | undefined,
  options: Omit<SemanticIndexOptions, 'questionTimeoutMs'> = {},
): SemanticIndex | undefined {
  if (config === undefined) return undefined;
  return new SemanticIndex(db, createEmbeddingsClient(config), {
    ...options,
    questionTimeoutMs: config.questionTimeoutMs,
  });
}
