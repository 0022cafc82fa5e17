// BM25 retrieval over chunked data sources, one index per chatbot (see bm25.ts).
//
// The chunks are the durable truth, kept in the keyv namespace "ls-chunks" (one record per
// source, plus one list of source uuids per chatbot); the BM25 index is memory only and
// is rebuilt from those records the first time a chatbot is searched after a (re)start.
// Writes for one chatbot run one after the other, so an add racing a first search cannot be
// lost or indexed twice.
//
// Memory is bounded (maxIndexedChunks, see index-budget.ts): the least recently searched
// chatbots' indexes are dropped and rebuilt on their next search. Dropping is safe at any
// moment because an index is only ever built inside its chatbot's queue, from the store: while
// an add runs, the chatbot's index is either still held (and takes the add) or dropped, and
// then the rebuild, queued behind the add, reads it from the store. A search that finds no
// index held queues its rebuild, so it waits for the adds issued before it.
import type { Keyv } from 'keyv';
import { silentLogger, type Logger } from '../../log.js';
import type { KeyvStore } from '../../state/keyv.js';
import { chunkText, countTokens } from './chunk.js';
import { Bm25Index } from './bm25.js';
import { IndexBudget } from './index-budget.js';
import { headingOf, rawParagraphs } from './markdown.js';
import { contextWeight, termsOf } from './terms.js';
import type { KnowledgeIndex, Passage, SearchOptions, SourceText } from './types.js';

export const CHUNKS_NAMESPACE = 'ls-chunks';

/** About 360 MB of indexes (measured ~180 MB per 100k chunks of ~900 characters). */
export const DEFAULT_MAX_INDEXED_CHUNKS = 200_000;

export interface KnowledgeIndexOptions {
  /** Most chunks held in memory across every chatbot's index. Default 200 000. */
  maxIndexedChunks?: number;
  /** Indexes dropped (info) and a chatbot larger than the bound (warn, once). Default silent. */
  logger?: Logger;
}

/** A source as persisted: its metadata and its chunks. */
interface StoredSource {
  uuid: string;
  chatbotUuid: string;
  title: string;
  type: string;
  fileName: string;
  link?: string;
  chunks: string[];
}

type SourceMeta = Omit<StoredSource, 'chunks'>;

interface ChunkRef {
  source: SourceMeta;
  index: number;
  text: string;
  /** The heading over a chunk that starts inside a section (its words are indexed with it). */
  section?: string;
  headings: string[];
}

/** For each chunk: the nearest heading above it when it does not start with one; its headings. */
function sectionsOf(chunks: string[]): { section?: string; headings: string[] }[] {
  let current: string | undefined;
  return chunks.map((text) => {
    const paragraphs = rawParagraphs(text);
    const starts = headingOf(paragraphs[0] ?? '') !== undefined;
    const section = starts ? undefined : current;
    const headings: string[] = [];
    for (const paragraph of paragraphs) {
      const heading = headingOf(paragraph);
      if (heading !== undefined) headings.push((current = heading));
    }
    return { ...(section && { section }), headings };
  });
}

/**
 * A chunk's terms: its words, its headings' words once more (a heading says what the section
 * is about), and the words of the heading it sits under.
 */
const chunkTerms = (ref: ChunkRef) =>
  termsOf(`${ref.section ?? ''}\n${ref.headings.join('\n')}\n${ref.text}`);

/** At most this many terms of earlier turns widen a search (see contextWeight). */
const MAX_CONTEXT_TERMS = 12;

class ChatbotIndex {
  private readonly bm25 = new Bm25Index();
  /** Chunk by document id. */
  private readonly refs: (ChunkRef | undefined)[] = [];
  private readonly idsBySource = new Map<string, number[]>();

  /** Chunks indexed. */
  get size(): number {
    return this.bm25.size;
  }

  addSource(stored: StoredSource): void {
    this.removeSource(stored.uuid);
    const { chunks, ...meta } = stored;
    const titleTerms = termsOf(meta.title);
    const sections = sectionsOf(chunks);
    const ids = chunks.map((text, index) => {
      const ref: ChunkRef = { source: meta, index, text, headings: [], ...sections[index] };
      const id = this.bm25.add(chunkTerms(ref), titleTerms);
      this.refs[id] = ref;
      return id;
    });
    this.idsBySource.set(stored.uuid, ids);
  }

  removeSource(uuid: string): void {
    for (const id of this.idsBySource.get(uuid) ?? []) {
      const ref = this.refs[id];
      if (ref === undefined) continue;
      this.bm25.remove(id, chunkTerms(ref), termsOf(ref.source.title));
      this.refs[id] = undefined;
    }
    this.idsBySource.delete(uuid);
  }

  rename(uuid: string, title: string): void {
    const ids = this.idsBySource.get(uuid) ?? [];
    const first = ids[0] === undefined ? undefined : this.refs[ids[0]];
    if (first === undefined) return;
    const chunks = ids.map((id) => this.refs[id]?.text ?? '');
    this.addSource({ ...first.source, title, chunks });
  }

  search(query: string, options: SearchOptions): Passage[] {
    const queryTerms = [...new Set(termsOf(query))];
    const contextTerms = [...new Set(termsOf(options.context ?? ''))]
      .filter((term) => !queryTerms.includes(term))
      .slice(0, MAX_CONTEXT_TERMS);
    const terms = [
      ...queryTerms.map((term) => ({ term, weight: 1 })),
      ...contextTerms.map((term) => ({ term, weight: contextWeight(query) })),
    ];
    if (terms.length === 0) return [];
    const allowed = options.sourceUuids === undefined ? undefined : new Set(options.sourceUuids);
    if (allowed?.size === 0) return [];
    const accept = allowed && ((id: number) => allowed.has(this.refs[id]?.source.uuid ?? ''));
    const passages: Passage[] = [];
    for (const hit of this.bm25.search(terms, options.limit ?? 5, accept)) {
      const ref = this.refs[hit.doc];
      if (ref === undefined) continue;
      const { source } = ref;
      passages.push({
        sourceUuid: source.uuid,
        title: source.title,
        fileName: source.fileName,
        type: source.type,
        ...(source.link === undefined ? {} : { link: source.link }),
        chunkIndex: ref.index,
        text: ref.text,
        ...(ref.section === undefined ? {} : { section: ref.section }),
        score: hit.score,
      });
    }
    return passages;
  }
}

const isSource = (record: StoredSource | string[] | null | undefined): record is StoredSource =>
  record !== undefined && record !== null && !Array.isArray(record);

export async function createKnowledgeIndex(
  store: KeyvStore,
  options: KnowledgeIndexOptions = {},
): Promise<KnowledgeIndex> {
  const kv: Keyv<StoredSource | string[]> = store.namespace(CHUNKS_NAMESPACE);
  const sourceKey = (uuid: string) => `source:${uuid}`;
  const chatbotKey = (uuid: string) => `chatbot:${uuid}`;
  const logger = options.logger ?? silentLogger;
  const maxIndexedChunks = options.maxIndexedChunks ?? DEFAULT_MAX_INDEXED_CHUNKS;
  const warnedOversize = new Set<string>();
  const loaded = new IndexBudget<ChatbotIndex>(maxIndexedChunks, {
    dropped(chatbot, chunks) {
      logger.info(
        { chatbot, chunks, maxIndexedChunks },
        'dropped a chatbot search index to stay within maxIndexedChunks (rebuilt on its next search)',
      );
    },
    oversize(chatbot, chunks) {
      if (warnedOversize.has(chatbot)) return;
      warnedOversize.add(chatbot);
      logger.warn(
        { chatbot, chunks, maxIndexedChunks },
        'a chatbot holds more chunks than maxIndexedChunks: its index is kept, alone in memory',
      );
    },
  });
  const queues = new Map<string, Promise<unknown>>();

  /** Runs fn after every earlier task of the same chatbot. */
  function serial<T>(chatbotUuid: string, fn: () => Promise<T>): Promise<T> {
    const previous = queues.get(chatbotUuid) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    queues.set(chatbotUuid, settled);
    void settled.then(() => {
      if (queues.get(chatbotUuid) === settled) queues.delete(chatbotUuid);
    });
    return next;
  }

  async function sourceList(chatbotUuid: string): Promise<string[]> {
    const list = await kv.get(chatbotKey(chatbotUuid));
    return Array.isArray(list) ? list : [];
  }

  /** The chatbot's index, built from the store when not held; marked as just searched. */
  async function indexFor(chatbotUuid: string): Promise<ChatbotIndex> {
    const ready = loaded.get(chatbotUuid);
    if (ready !== undefined) {
      loaded.touch(chatbotUuid);
      return ready;
    }
    return serial(chatbotUuid, async () => {
      const again = loaded.get(chatbotUuid);
      if (again !== undefined) {
        loaded.touch(chatbotUuid);
        return again;
      }
      const uuids = await sourceList(chatbotUuid);
      const records = (uuids.length === 0 ? [] : await kv.getMany(uuids.map(sourceKey))).filter(
        isSource,
      );
      // Free the room first, so the dropped indexes can be collected while this one is built.
      loaded.makeRoomFor(
        chatbotUuid,
        records.reduce((sum, record) => sum + record.chunks.length, 0),
      );
      const index = new ChatbotIndex();
      for (const record of records) index.addSource(record);
      loaded.hold(chatbotUuid, index);
      return index;
    });
  }

  return {
    async add(source: SourceText) {
      const chunks = chunkText(source.text);
      const stored: StoredSource = {
        uuid: source.uuid,
        chatbotUuid: source.chatbotUuid,
        title: source.title,
        type: source.type,
        fileName: source.fileName,
        ...(source.link === undefined ? {} : { link: source.link }),
        chunks,
      };
      await serial(source.chatbotUuid, async () => {
        await kv.set(sourceKey(source.uuid), stored);
        const uuids = await sourceList(source.chatbotUuid);
        if (!uuids.includes(source.uuid))
          await kv.set(chatbotKey(source.chatbotUuid), [...uuids, source.uuid]);
        const index = loaded.get(source.chatbotUuid);
        if (index === undefined) return; // built from the store when next searched
        // Fresh copies: a chunk may be a slice of the source's text, and would keep all of it
        // alive (measured: 100k freshly added chunks took half as much memory again).
        index.addSource({ ...stored, chunks: structuredClone(chunks) });
        loaded.resized(source.chatbotUuid);
      });
      return { tokens: countTokens(source.text), chunks: chunks.length };
    },

    async rename(sourceUuid: string, title: string) {
      const record = await kv.get(sourceKey(sourceUuid));
      if (!isSource(record)) return; // nothing indexed yet
      await serial(record.chatbotUuid, async () => {
        const current = await kv.get(sourceKey(sourceUuid));
        if (!isSource(current)) return;
        await kv.set(sourceKey(sourceUuid), { ...current, title });
        loaded.get(current.chatbotUuid)?.rename(sourceUuid, title);
      });
    },

    async search(chatbotUuid: string, query: string, options: SearchOptions = {}) {
      return (await indexFor(chatbotUuid)).search(query, options);
    },

    async close() {
      await Promise.all([...queues.values()]);
      loaded.clear();
    },
  };
}
