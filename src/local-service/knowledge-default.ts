// The default knowledge side, built from ./extraction (files, pages and URL fetching) and
// ./knowledge: the extractive answer writer (or a language model when one is configured). Search is
// storage's part (FTS5 in the service's database, see knowledge/search-index.ts).
import type { AnswerDraft, KnowledgePort } from './knowledge-port.js';
import {
  ExtractionPool,
  extractText,
  fetchUrlText,
  type ExtractionPoolOptions,
} from './extraction/index.js';
import { citedIn, composeAnswer, splitIntoPieces, streamLlmAnswer } from './knowledge/index.js';
import { qaAnswer } from './knowledge/qa-answer.js';
import type { LlmOptions } from './options.js';
import { fromArray } from './pieces.js';

export interface DefaultKnowledgeOptions {
  refusePrivateUrls: boolean;
  maxFetchBytes: number;
  fetchTimeoutMs: number;
  llm?: LlmOptions;
  /** Converter processes and limits of text extraction (see extraction/extract-pool.ts). */
  extraction?: ExtractionPoolOptions;
  /** Converter processes shared with others, used instead of a pool of its own; not closed here. */
  pool?: ExtractionPool;
  /** Most text taken from one file or page (see textLimitFor in extraction/extract.ts). */
  maxTextBytes?: number;
}

/** Settles with the work, or rejects as soon as the signal aborts (the work is left to end). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

export async function createDefaultKnowledge(
  options: DefaultKnowledgeOptions,
): Promise<KnowledgePort> {
  // Uploads and fetched pages are converted in the same converter processes, with the same limits.
  const pool = options.pool ?? new ExtractionPool(options.extraction);
  const owned = options.pool === undefined;
  const extract = { convert: pool.convert, maxTextBytes: options.maxTextBytes };
  return {
    async extractText(fileName, bytes, contentType) {
      return (await extractText({ fileName, bytes, contentType }, extract)).text;
    },
    prepareText: (text) => pool.prepare(text),
    async fetchUrl(url, signal) {
      const page = await untilAborted(
        fetchUrlText(url, {
          refusePrivate: options.refusePrivateUrls,
          maxBytes: options.maxFetchBytes,
          timeoutMs: options.fetchTimeoutMs,
          extract,
        }),
        signal,
      );
      return { text: page.text, title: page.title, bytes: page.bytes };
    },
    answer(request, signal): AnswerDraft {
      const llm = options.llm;
      if (llm) {
        const answer = streamLlmAnswer(
          {
            url: llm.url,
            model: llm.model,
            apiKey: llm.apiKey,
            firstByteTimeoutMs: llm.firstByteTimeoutMs,
            idleTimeoutMs: llm.idleTimeoutMs,
          },
          {
            prompt: request.prompt,
            temperature: request.temperature ?? 0.2,
            query: request.query,
            passages: request.passages,
            history: request.history,
            citations: request.showCitations,
            signal,
          },
        );
        return {
          pieces: answer,
          // Only the markers the model actually wrote are kept.
          citations: (text) => citedIn(text, answer.citeData),
          finishReason: () => answer.finishReason,
        };
      }
      const pair = request.qaPair;
      const composed = pair
        ? qaAnswer(pair.answer, pair.passage, request.showCitations)
        : composeAnswer(request.query, request.passages, { citations: request.showCitations });
      return {
        pieces: fromArray(splitIntoPieces(composed.text)),
        citations: () => composed.citeData,
      };
    },
    close: async () => {
      if (owned) await pool.close();
    },
  };
}
