// The knowledge side of the local service: chunking, retrieval and answers (text comes from
// ../extraction).
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
  type ComposedAnswer,
  type KnowledgeIndex,
  type Passage,
  type SearchOptions,
  type SourceText,
} from './types.js';
