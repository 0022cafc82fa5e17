// The conversation engine's public surface, for adapters and `chatbridge start`.
export * from './types.js';
export {
  createConversation,
  RESTART_NOTICE,
  type ConversationDeps,
  type ConversationEngine,
} from './engine.js';
export * from './observer.js';
export { Renderer, type FinalAnswer, type RendererOptions } from './renderer.js';
export { splitText, type Part } from './split.js';
export { safeMarkdown, safeMarkdownParts, type SafeView } from './safe-markdown.js';
export { CONTINUATION_MARKER } from './final-layout.js';
export { NOT_CONFIGURED_TEXT } from './notices.js';
export { systemClock, type Clock } from './clock.js';
export {
  castVote,
  giveReason,
  voteAcknowledgement,
  FEEDBACK_REASON_MAX,
  REASON_THANKS,
  type FeedbackDeps,
  type VoteInput,
  type VoteOutcome,
  type FeedbackRecord,
  type FeedbackVote,
} from './feedback.js';
