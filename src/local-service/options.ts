// What a local service can be told at start, with the defaults that apply when it is not.
import type { Logger } from '../log.js';
import type { KnowledgePort } from './knowledge-port.js';
import type { ExtractionPool, ExtractionPoolOptions } from './extraction/extract-pool.js';
import type { ServiceMetrics } from './ops.js';

/** Fault injection for tests and demos; everything off unless set. Applies to stream requests. */
export interface FaultOptions {
  /** Wait this long before the first byte of a stream response. */
  firstByteDelayMs?: number;
  /** Answer stream requests with this HTTP status (e.g. 500, 503) instead of an answer. */
  failStatus?: number;
  /** Cut the connection after writing this many pieces (0 cuts before the first piece). */
  cutAfterPieces?: number;
}

export interface LlmOptions {
  /** An OpenAI-compatible base address, e.g. http://127.0.0.1:11434/v1. */
  url: string;
  model: string;
  apiKey?: string;
  /** Longest wait for the model's first event. Default 30 s. */
  firstByteTimeoutMs?: number;
  /** Longest silence between two events of the model's answer. Default 60 s. */
  idleTimeoutMs?: number;
}

/** An OpenAI-compatible embeddings endpoint: semantic retrieval beside bm25 (off when unset). */
export interface EmbeddingsOptions {
  /** The API's base, e.g. http://127.0.0.1:11434/v1 (`/embeddings` is appended). */
  url: string;
  model: string;
  apiKey?: string;
  /** Longest time one call at ingest (a batch of chunks) may take. Default 30 s. */
  timeoutMs?: number;
  /** Longest time the question may take to embed; past it, bm25 alone. Default 2 s. */
  questionTimeoutMs?: number;
}

export interface LocalServiceOptions {
  /** Each key is its own user. At least one. */
  apiKeys: string[];
  /** Where metrics go (GET /metrics); a fresh registry without process metrics by default. */
  metrics?: ServiceMetrics;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** sqlite://path or memory://; default memory:// in code (the CLI defaults to SQLite). */
  storeUrl?: string;
  /** Pause between two streamed pieces. Default 0. */
  streamDelayMs?: number;
  /** Replaces the pause between pieces (tests release pieces one by one with it). */
  pacer?: (pieceIndex: number, signal: AbortSignal) => Promise<void>;
  llm?: LlmOptions;
  embeddings?: EmbeddingsOptions;
  /** Refuse URL sources on private, link-local and loopback addresses. Default false. */
  refusePrivateUrls?: boolean;
  /** Largest uploaded file. Default 10 MB. */
  maxUploadBytes?: number;
  /** Largest JSON body. Default 1 MB. */
  bodyLimit?: number;
  /**
   * Longest silence while an upload's form is still arriving: past it the upload is refused
   * (400) and the connection closed. Default 30 s.
   */
  uploadIdleTimeoutMs?: number;
  /**
   * Longest time to receive a whole request (headers and body), as a last resort against a
   * client that keeps a body open; Node answers 408 and closes. Default 5 minutes.
   */
  requestTimeoutMs?: number;
  /** Largest text taken from one URL. Default 10 MB. */
  maxFetchBytes?: number;
  /** Time allowed for one URL fetch. Default 15 s. */
  fetchTimeoutMs?: number;
  /**
   * Text extraction of uploads and fetched pages: converter processes, each file's time limit
   * (default 20 s) and each worker's heap (default 512 MB). maxTextBytes bounds the text of
   * one file (at most 20 times its size); default the larger of maxUploadBytes and maxFetchBytes.
   */
  extraction?: ExtractionPoolOptions & { maxTextBytes?: number };
  /**
   * Converter processes shared with other services of this process, used instead of the
   * service's own (extraction's pool options are then ignored): each started service would
   * otherwise start its own (a Node process, about 0.4 s of CPU). Whoever made the pool closes
   * it; close() leaves it running.
   */
  extractionPool?: ExtractionPool;
  faults?: FaultOptions;
  /** Injected clock (ms since the epoch): timestamps and the rate limit read it. */
  now?: () => number;
  logger?: Logger;
  /** Replaces the knowledge side (extraction, fetching, answers); default from ./knowledge. */
  knowledge?: KnowledgePort;
}

export const DEFAULTS = {
  host: '127.0.0.1',
  storeUrl: 'memory://',
  maxUploadBytes: 10 * 1024 * 1024,
  bodyLimit: 1024 * 1024,
  uploadIdleTimeoutMs: 30_000,
  requestTimeoutMs: 300_000,
  maxFetchBytes: 10 * 1024 * 1024,
  fetchTimeoutMs: 15_000,
  rateLimit: [20, 240] as [number, number],
  rateLimitMessage: 'Too many messages in a row: please wait a moment before sending more.',
} as const;
