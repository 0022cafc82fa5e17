// What the user reads when an answer goes wrong: one short sentence per kind of failure, never
// a stack trace, never an internal message (those go to the log).
import { ErrorCode, isCodedError } from '../errors.js';
import { isServiceError, type ServiceError } from '../service/errors.js';
import type { Notice } from './types.js';

export const NOT_CONFIGURED_TEXT =
  'No chatbot is set up for this channel yet. An admin can bind one with `chatbot use <name>` ' +
  'here or `chatbot default <name>` for the whole workspace.';

export const DEFAULT_RATE_LIMIT_TEXT =
  'The chatbot is receiving too many messages right now. Please try again in a moment.';

const TEXTS = {
  unavailable: 'The chatbot service could not be reached. Please try again in a moment.',
  timeout: 'The chatbot took too long to answer. Please try again.',
  cut_off: 'The answer was cut off before it was complete.',
  auth: 'The bridge could not sign in to the chatbot service. An admin should check its API key.',
  gone: 'The chatbot bound here no longer exists. An admin can bind another with `chatbot use <name>`.',
  refused: 'The chatbot service refused this message.',
  empty: 'The chatbot sent no answer.',
  incomplete: 'The rest of this answer could not be posted.',
  error: 'Something went wrong while answering. Please try again.',
} as const;

/** Where in the answer a failure happened: before any text streamed, or in the middle. */
export type FailureStage = 'before' | 'during';

/** A failure's notice, chosen by its code; `rateLimitText` is the chatbot's own message. */
export function noticeFor(error: unknown, stage: FailureStage, rateLimitText: string): Notice {
  if (!isCodedError(error)) return { kind: 'error', text: TEXTS.error };
  switch (error.code) {
    case ErrorCode.ServiceRateLimited:
      return { kind: 'rate_limited', text: rateLimitText };
    case ErrorCode.ServiceTimeout:
      return { kind: 'timeout', text: TEXTS.timeout };
    case ErrorCode.ServiceUnavailable:
    case ErrorCode.ServiceProtocol:
      return stage === 'during'
        ? { kind: 'cut_off', text: TEXTS.cut_off }
        : { kind: 'unavailable', text: TEXTS.unavailable };
    case ErrorCode.ServiceAuth:
      return { kind: 'error', text: TEXTS.auth };
    case ErrorCode.ServiceNotFound:
      return { kind: 'error', text: TEXTS.gone };
    case ErrorCode.ServiceValidation: {
      const { field, rule } = error as ServiceError;
      const why = field && rule ? `: ${field} ${rule}` : '';
      return { kind: 'error', text: `${TEXTS.refused.slice(0, -1)}${why}.` };
    }
    default:
      return { kind: 'error', text: TEXTS.error };
  }
}

/**
 * The rate-limit message a 429 carried. The client passes a body's message through as is (it is
 * the chatbot's rate_limit_message); its own descriptions end in "(429 on POST /path)".
 */
export function rateLimitTextOf(error: unknown): string | undefined {
  if (!isServiceError(error, 'rate_limited')) return undefined;
  const text = error.message.trim();
  if (text === '' || /\(\d{3} on [A-Z]+ \S*\)$/.test(text)) return undefined;
  return text.length <= 500 ? text : undefined;
}

export function inBandErrorNotice(errorMessage: string): Notice {
  const detail = errorMessage.trim().replace(/\s+/g, ' ').slice(0, 300);
  return { kind: 'error', text: detail ? `The chatbot reported an error: ${detail}` : TEXTS.error };
}

export function emptyAnswerNotice(): Notice {
  return { kind: 'error', text: TEXTS.empty };
}

/**
 * The notice of an answer only partly on screen because the chat surface refused a message it
 * needed. The answer's own notice, if any, is kept in front: a message carries only one.
 */
export function incompleteNotice(notice?: Notice): Notice {
  if (!notice) return { kind: 'incomplete', text: TEXTS.incomplete };
  const own = notice.text.trim();
  const joiner = own === '' ? '' : /[.!?…]$/.test(own) ? ' ' : '. ';
  return { kind: 'incomplete', text: `${own}${joiner}${TEXTS.incomplete}` };
}
