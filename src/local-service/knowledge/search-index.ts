// BM25 retrieval over chunked data sources, one index per chatbot (see bm25.ts).
//
// The chunks are the durable truth, kept in the keyv namespace "ls-chunks" (one record per
// source, plus one list of source uuids per chatbot); the BM25 index is memory only and
// is rebuilt from those records the first time a chatbot is searched after a (re)start.
// Writes for one chatbot run one after the other, so an add racing a first search cannot be
// lost or indexed twice.
import type { Keyv } from 'keyv';
import type { KeyvStore } from '../../state/keyv.js';
import { chunkText, countTokens } from './chunk.js';
import { Bm25Index } from './bm25.js';
import { headingOf, rawParagraphs } from './markdown.js';
import { contextWeight, termsOf } from './terms.js';
import type { KnowledgeIndex, Passage, SearchOptions, SourceText } from './types.js';

export const CHUNKS_NAMESPACE = 'ls-chunks';

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

export async function createKnowledgeIndex(store: KeyvStore): Promise<KnowledgeIndex> {
  const kv: Keyv<StoredSource | string[]> = store.namespace(CHUNKS_NAMESPACE);
  const sourceKey = (uuid: string) => `source:${uuid}`;
  const chatbotKey = (uuid: string) => `chatbot:${uuid}`;
  const loaded = new Map<string, ChatbotIndex>();
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

  async function indexFor(chatbotUuid: string): Promise<ChatbotIndex> {
    const ready = loaded.get(chatbotUuid);
    if (ready !== undefined) return ready;
    return serial(chatbotUuid, async () => {
      const again = loaded.get(chatbotUuid);
      if (again !== undefined) return again;
      const index = new ChatbotIndex();
      const uuids = await sourceList(chatbotUuid);
      const records = uuids.length === 0 ? [] : await kv.getMany(uuids.map(sourceKey));
      for (const record of records) {
        if (record !== undefined && record !== null && !Array.isArray(record))
          index.addSource(record);
      }
      loaded.set(chatbotUuid, index);
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
        loaded.get(source.chatbotUuid)?.addSource(stored);
      });
      return { tokens: countTokens(source.text), chunks: chunks.length };
    },

    async rename(sourceUuid: string, title: string) {
      const record = await kv.get(sourceKey(sourceUuid));
      if (record === undefined || record === null || Array.isArray(record)) return; // nothing indexed yet
      await serial(record.chatbotUuid, async () => {
        const current = await kv.get(sourceKey(sourceUuid));
        if (current === undefined || current === null || Array.isArray(current)) return;
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
