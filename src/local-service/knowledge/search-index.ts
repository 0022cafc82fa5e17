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
import { performance } from 'node:perf_hooks';
import { silentLogger, type Logger } from '../../log.js';
import type { KeyvStore } from '../../state/keyv.js';
import { chunkText, countTokens } from './chunk.js';
import { ChatbotIndex, type StoredSource } from './chatbot-index.js';
import { IndexBudget } from './index-budget.js';
import type { KnowledgeIndex, SearchOptions, SourceText, WarmUpReport } from './types.js';

export const CHUNKS_NAMESPACE = 'ls-chunks';

/** About 360 MB of indexes (measured ~180 MB per 100k chunks of ~900 characters). */
export const DEFAULT_MAX_INDEXED_CHUNKS = 200_000;

export interface KnowledgeIndexOptions {
  /** Most chunks held in memory across every chatbot's index. Default 200 000. */
  maxIndexedChunks?: number;
  /** Indexes built and dropped (info) and a chatbot larger than the bound (warn, once). Default silent. */
  logger?: Logger;
  /**
   * Awaited by warm-up between two sources it indexes, so requests keep being served.
   * Default: the next turn of the event loop (setImmediate). Tests may park warm-up here.
   */
  yieldToLoop?: (signal: AbortSignal) => Promise<void>;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

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
  const yieldToLoop = options.yieldToLoop ?? nextTurn;
  const stopping = new AbortController();
  let warming: Promise<unknown> = Promise.resolve();

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

  async function recordsOf(chatbotUuid: string): Promise<StoredSource[]> {
    const uuids = await sourceList(chatbotUuid);
    return (uuids.length === 0 ? [] : await kv.getMany(uuids.map(sourceKey))).filter(isSource);
  }

  function built(chatbot: string, index: ChatbotIndex, started: number, cause: string): void {
    const ms = Math.round(performance.now() - started);
    logger.info({ chatbot, chunks: index.size, ms, cause }, 'built a chatbot search index');
  }

  /**
   * Builds a chatbot's index ahead of its first search, in its queue (so adds and searches
   * keep their order), one source at a time with a yield to the event loop between two.
   * Never drops another index: one that does not fit beside those held is left unbuilt.
   */
  function warmOne(chatbotUuid: string, stop: AbortSignal): Promise<boolean> {
    return serial(chatbotUuid, async () => {
      if (loaded.get(chatbotUuid) !== undefined) return true;
      if (stop.aborted) return false;
      const records = await recordsOf(chatbotUuid);
      const chunks = records.reduce((sum, record) => sum + record.chunks.length, 0);
      if (chunks === 0 || loaded.chunks + chunks > maxIndexedChunks) return false;
      const started = performance.now();
      const index = new ChatbotIndex();
      for (const record of records) {
        if (stop.aborted) return false;
        index.addSource(record);
        await yieldToLoop(stop);
      }
      if (stop.aborted || !loaded.holdIfRoom(chatbotUuid, index)) return false;
      built(chatbotUuid, index, started, 'warm-up');
      return true;
    });
  }

  async function warm(chatbotUuids: string[], signal?: AbortSignal): Promise<WarmUpReport> {
    const stop = signal ? AbortSignal.any([stopping.signal, signal]) : stopping.signal;
    const report: WarmUpReport = { built: [], skipped: [] };
    for (const chatbot of new Set(chatbotUuids)) {
      const ok =
        !stop.aborted &&
        (await warmOne(chatbot, stop).catch((error: unknown) => {
          if (!stop.aborted) {
            logger.warn({ chatbot, error: String(error) }, 'could not warm a chatbot search index');
          }
          return false;
        }));
      (ok ? report.built : report.skipped).push(chatbot);
    }
    logger.info(
      { built: report.built.length, skipped: report.skipped.length, chunks: loaded.chunks },
      stop.aborted ? 'search index warm-up cancelled' : 'search index warm-up finished',
    );
    return report;
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
      const records = await recordsOf(chatbotUuid);
      // Free the room first, so the dropped indexes can be collected while this one is built.
      loaded.makeRoomFor(
        chatbotUuid,
        records.reduce((sum, record) => sum + record.chunks.length, 0),
      );
      const started = performance.now();
      const index = new ChatbotIndex();
      index.load(records);
      built(chatbotUuid, index, started, 'search');
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

    warm(chatbotUuids: string[], signal?: AbortSignal) {
      const run = warm(chatbotUuids, signal);
      warming = run.catch(() => undefined);
      return run;
    },

    async close() {
      stopping.abort(new Error('search index closing'));
      await warming;
      await Promise.all([...queues.values()]);
      loaded.clear();
    },
  };
}
