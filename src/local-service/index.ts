// The local service: a self-hostable implementation of the chatbot service interface.
export { startLocalService, type LocalService } from './server.js';
export {
  runServiceCommand,
  serviceOptionsFrom,
  SERVICE_USAGE,
  type ServiceCommandIo,
} from './command.js';
export type { FaultOptions, LlmOptions, LocalServiceOptions } from './options.js';
export { DEFAULTS as LOCAL_SERVICE_DEFAULTS } from './options.js';
export type {
  KnowledgePort,
  AnswerDraft,
  AnswerRequest,
  FetchedPage,
  Turn,
} from './knowledge-port.js';
