// Text extraction: files and pages to text, in converter processes with limits.
export {
  ACCEPTED_EXTENSIONS,
  extractText,
  textLimitFor,
  type ExtractInput,
  type ExtractOptions,
  type ExtractedText,
} from './extract.js';
export { EXTRACTION_DEFAULTS, ExtractionPool, type ExtractionPoolOptions } from './extract-pool.js';
export { fetchUrlText, type FetchUrlOptions, type FetchedText } from './fetch-url.js';
export { isPrivateAddress } from './address-guard.js';
export { ExtractionLimitError, FetchFailedError, UnsupportedFileTypeError } from './errors.js';
