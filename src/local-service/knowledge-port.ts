// What the HTTP side needs from the knowledge side, in one injectable object. The default is
// built from the modules in ./knowledge (see knowledge-default.ts); tests may pass their own.
import type { CiteEntry } from '../service/types.js';
import type { PreparedText } from './knowledge/chunk-store.js';
import type { Passage } from './knowledge/types.js';

export interface FetchedPage {
  text: string;
  /** The page's own title, when it has one. */
  title?: string;
  /** Bytes downloaded (the body as received), when known. */
  bytes?: number;
}

/** One earlier turn of the session, oldest first. */
export interface Turn {
  query: string;
  response: string;
  /** The data sources its answer cited. */
  sources?: string[];
}

export interface AnswerRequest {
  query: string;
  passages: Passage[];
  history: Turn[];
  showCitations: boolean;
  /** The answering agent's instructions and settings (used by a language model). */
  prompt: string;
  temperature?: number;
  /**
   * The whole answer of the Q&A pair the question asks (found by the HTTP side, which reads
   * the pair): an extractive writer states it as it is; a language model may ignore it.
   */
  qaPair?: { answer: string; passage: Passage };
}

/** An answer being produced: pieces in order, then the citations of what was said. */
export interface AnswerDraft {
  pieces: AsyncIterable<string>;
  /** Read after the last piece, given the whole text: entries keyed by its markers. */
  citations(text: string): Record<string, CiteEntry>;
  /** Read after the last piece: why the writer stopped ("stop" when not given). */
  finishReason?(): string;
}

export interface KnowledgePort {
  /** The text of an uploaded file; throws UnsupportedFileTypeError for a type it cannot read. */
  extractText(fileName: string, bytes: Uint8Array, contentType?: string): Promise<string>;
  /**
   * A source's text cut into chunks (Markdown read by marked). Optional: without it the text is
   * cut in this thread; the default does it in a converter process with extraction's limits, because
   * hostile nesting can make the lexer slow. Throws ExtractionLimitError past a limit.
   */
  prepareText?(text: string): Promise<PreparedText>;
  /** Throws FetchFailedError (or any error) with the reason when the page cannot be read. */
  fetchUrl(url: string, signal: AbortSignal): Promise<FetchedPage>;
  answer(request: AnswerRequest, signal: AbortSignal): AnswerDraft;
  close(): Promise<void>;
}
