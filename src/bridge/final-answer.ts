// How an answer ends: read back from the stored message when the stream closed (its text is
// final, its citation markers become numbered sources, an in-band error or an empty answer
// becomes a notice), or, when it failed, the partial text with the notice the failure calls for.
import type { Logger } from '../log.js';
import type { ServiceClient } from '../service/api.js';
import { parseCitations } from '../service/citations.js';
import { isServiceError } from '../service/errors.js';
import type { StateStore } from '../state/types.js';
import type { ChatbotDirectory } from './chatbots.js';
import {
  DEFAULT_RATE_LIMIT_TEXT,
  emptyAnswerNotice,
  inBandErrorNotice,
  noticeFor,
  rateLimitTextOf,
} from './notices.js';
import type { FinalAnswer } from './renderer.js';
import { resolveSources } from './sources.js';
import { INTERRUPTED_TEXT } from './takeover.js';
import type { Notice } from './types.js';

/** What an interrupted answer says: the user's message was not lost on purpose. */
export const RESTART_NOTICE: Notice = {
  kind: 'cut_off',
  text: 'The answer was cut off because the bridge is restarting. Please ask again in a moment.',
};

/**
 * What a cut answer says when another process takes its event over (graceful shutdown with a
 * live replica, or a store the next start reads): the complete answer follows from there.
 */
export const HANDED_OFF_NOTICE: Notice = { kind: 'cut_off', text: INTERRUPTED_TEXT };

export interface FinalAnswerDeps {
  client: Pick<ServiceClient, 'listMessages'>;
  state: Pick<StateStore, 'sources'>;
  chatbots: Pick<ChatbotDirectory, 'get'>;
  log: Logger;
}

export interface StreamedAnswer {
  sessionUuid: string;
  chatbotUuid: string;
  /** The query sent: finds the stored message among the session's. */
  query: string;
  /** The text the stream delivered (used when the stored message cannot be read). */
  streamed: string;
  signal: AbortSignal;
}

/** Reads the stored message back: the authoritative text, citations and in-band errors. */
export async function readFinalAnswer(
  deps: FinalAnswerDeps,
  { sessionUuid, chatbotUuid, query, streamed, signal }: StreamedAnswer,
): Promise<{ answer: FinalAnswer; messageUuid?: string }> {
  const { client, log } = deps;
  const messages = await client.listMessages(sessionUuid, { signal }).catch((error: unknown) => {
    log.warn({ err: error, session: sessionUuid }, 'reading the stored message failed');
    return [];
  });
  const stored =
    messages.findLast((msg) => msg.query === query) ??
    messages.findLast((msg) => msg.query.trim() === query.trim());
  const response = stored?.response || streamed;
  const citeData = stored?.cite_data ?? {};
  const show = Object.keys(citeData).length > 0 && (await showsCitations(deps, chatbotUuid));
  // With citations off every marker goes: parsed against no entries, all are unknown.
  const { text, citations } = parseCitations({ response, cite_data: show ? citeData : {} });
  const sources = show
    ? await resolveSources(citations, citeData, deps.state.sources, (error) =>
        log.warn({ err: error }, 'source registry lookup failed'),
      )
    : [];
  const answer: FinalAnswer = { text, sources };
  if (stored?.error_message) answer.notice = inBandErrorNotice(stored.error_message);
  else if (text.trim() === '') answer.notice = emptyAnswerNotice();
  return { answer, ...(stored?.uuid ? { messageUuid: stored.uuid } : {}) };
}

async function showsCitations(deps: FinalAnswerDeps, chatbotUuid: string): Promise<boolean> {
  const chatbot = await deps.chatbots.get(chatbotUuid).catch((error: unknown) => {
    deps.log.warn({ err: error }, 'reading chatbot settings failed');
    return undefined;
  });
  // Settings unknown: the service only cites when citations are on, so show them.
  return chatbot ? chatbot.meta.show_citations === true : true;
}

export interface FailedAnswer {
  error: unknown;
  streamed: string;
  chatbotUuid: string | undefined;
  /** The answer's signal: aborted when the thread's lock was lost or the bridge stops. */
  signal: AbortSignal;
  /** Aborted when the bridge is shutting down (the notice then says it restarts). */
  shutdown: AbortSignal;
  /** Shutting down, and another process takes the event over: its answer follows. */
  handedOff?: boolean;
}

/** The partial text that was shown, and the notice the failure calls for. */
export async function failedAnswer(
  deps: Pick<FinalAnswerDeps, 'chatbots'>,
  { error, streamed, chatbotUuid, signal, shutdown, handedOff }: FailedAnswer,
): Promise<FinalAnswer> {
  const partial =
    isServiceError(error) && (error.partialText ?? '').length > streamed.length
      ? error.partialText!
      : streamed;
  const stage = partial !== '' ? 'during' : 'before';
  let rateLimitText = rateLimitTextOf(error);
  if (isServiceError(error, 'rate_limited') && !rateLimitText && chatbotUuid) {
    const chatbot = await deps.chatbots.get(chatbotUuid).catch(() => undefined);
    rateLimitText = chatbot?.meta.rate_limit_message?.trim() || undefined;
  }
  const notice = shutdown.aborted
    ? handedOff
      ? HANDED_OFF_NOTICE
      : RESTART_NOTICE
    : signal.aborted
      ? { kind: 'cut_off' as const, text: 'The answer was cut off before it was complete.' }
      : noticeFor(error, stage, rateLimitText ?? DEFAULT_RATE_LIMIT_TEXT);
  // Without the stored citations the markers cannot be resolved: they are left out.
  return { text: parseCitations({ response: partial, cite_data: {} }).text, sources: [], notice };
}
