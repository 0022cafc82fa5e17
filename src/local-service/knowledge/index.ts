// The knowledge side of the local service: what the HTTP side calls.
export {
  ACCEPTED_EXTENSIONS,
  extractText,
  textLimitFor,
  type ExtractInput,
  type ExtractOptions,
  type ExtractedText,
} from '../extraction/extract.js';
export { EXTRACTION_DEFAULTS, ExtractionPool, type ExtractionPoolOptions } from '../extraction/extract-pool.js';
export { fetchUrlText, type FetchUrlOptions, type FetchedText } from '../extraction/fetch-url.js';
export { isPrivateAddress } from '../extraction/address-guard.js';
export { CHUNK_TOKENS, chunkText, countTokens } from './chunk.js';
export { createKnowledgeIndex } from './search-index.js';
export { prepareText, type PreparedText } from './chunk-store.js';
export {
  NOT_FOUND_ANSWER,
  composeAnswer,
  splitIntoPieces,
  type ComposeOptions,
} from './compose.js';
export { streamLlmAnswer, type LlmAnswer, type LlmConfig, type LlmInput } from './llm.js';
export { citedIn } from './cite.js';
export {
  ExtractionLimitError,
  FetchFailedError,
  UnsupportedFileTypeError,
  type ComposedAnswer,
  type KnowledgeIndex,
  type Passage,
  type SearchOptions,
  type SourceText,
} from './types.js';
