// The contract between the local service's HTTP side (routes, storage, agents, streaming) and
// its knowledge side (chunking, FTS5 retrieval, answer writing).
import type { CiteEntry } from '../../service/types.js';

/** A data source's text, ready to be chunked and indexed. */
export interface SourceText {
  uuid: string;
  chatbotUuid: string;
  title: string;
  /** qa, url, upload. */
  type: string;
  fileName: string;
  link?: string;
  text: string;
}

/** One retrieved chunk. */
export interface Passage {
  sourceUuid: string;
  title: string;
  fileName: string;
  type: string;
  link?: string;
  /** Position of the chunk within its source (0-based). */
  chunkIndex: number;
  text: string;
  /** The chunk's heading path ("Options › threshold"), when it sits under headings. */
  section?: string;
  /** Rank score; higher is better. Comparable within one search only. */
  score: number;
  /**
   * The score by the question's own words alone, when the previous question's words helped
   * rank (a follow-up). A second passage must come near the first by this score as well as by
   * `score`: it answers what is asked now, on the topic asked before.
   */
  askedScore?: number;
  /**
   * Share of the question's weight (rare words weigh most) the chunk holds, with its title and
   * heading path: 0..1. The one signal the answer writer trusts a passage by.
   */
  coverage?: number;
  /** The chunk's run of whole sentences, items, rows and code that best answers, as written. */
  window?: string;
}

export interface SearchOptions {
  /** Restrict to these sources; undefined searches every source of the chatbot. */
  sourceUuids?: string[];
  /** Most passages returned. Default 5. */
  limit?: number;
  /**
   * The conversation's previous turn: its question's words join the search at a lower weight
   * (as much as the question's own when that finds nothing to trust), so a follow-up like "and how do I install it?" finds its topic; the sources its answer
   * cited break ties.
   */
  previous?: { query: string; sources?: readonly string[] };
}

export interface KnowledgeIndex {
  /** Chunks and indexes a stored data source's text (replacing any earlier text of it). */
  add(source: SourceText): Promise<{ tokens: number; chunks: number }>;
  /** Changes a stored data source's title everywhere it is shown and searched. */
  rename(sourceUuid: string, title: string): Promise<void>;
  search(chatbotUuid: string, query: string, options?: SearchOptions): Promise<Passage[]>;
  close(): Promise<void>;
}

/** An answer written from passages, before it is streamed. */
export interface ComposedAnswer {
  text: string;
  /** Keyed by the marker used in text (for example "2.1" for [2.1]); empty without citations. */
  citeData: Record<string, CiteEntry>;
}
