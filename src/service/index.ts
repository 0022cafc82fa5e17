// The public surface of the service client, also usable on its own as a library.
export { createServiceClient, DEFAULT_TIMEOUTS } from './client.js';
export type {
  AnswerStream,
  CallOptions,
  ServiceClient,
  ServiceClientConfig,
  ServiceTimeouts,
} from './api.js';
export { ServiceError, isServiceError } from './errors.js';
export { proxyFromEnv } from './proxy.js';
export { createDispatcher, type ProxySettings } from './dispatchers.js';
export type { ServiceErrorDetails, ServiceErrorKind } from './errors.js';
export * from './types.js';
export * from './validate.js';
export {
  createMarkerNumberer,
  parseCitations,
  type Citation,
  type CitationOptions,
  type MarkerNumberer,
  type ParsedCitations,
  type SourceInfo,
} from './citations.js';
export {
  classifySourceStatus,
  normalizeAgent,
  normalizeChatbot,
  normalizeDataSource,
  normalizeMessage,
  normalizeSession,
  normalizeSourceTag,
  parseJsonField,
  toBoolean,
} from './normalize.js';
