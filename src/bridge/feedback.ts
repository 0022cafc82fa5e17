// Feedback on answers, platform-neutral: the engine remembers a finished answer so votes can be
// cast on it, and the adapters hand every 👍/👎 click and 👎 reason here. What a vote looks like
// (buttons, modals, acknowledgements) stays in each adapter; what it means is decided once.
import type { Logger } from '../log.js';
import { REASON_CHARS } from '../state/feedback.js';
import type { FeedbackRecord, FeedbackVote, StateStore } from '../state/types.js';
import type { BridgeObserver } from './observer.js';
import type { AnswerRef, IncomingMessage } from './types.js';

export type { FeedbackRecord, FeedbackVote } from '../state/types.js';

/** Most characters of a 👎 reason the platforms' forms accept: what the store keeps. */
export const FEEDBACK_REASON_MAX = REASON_CHARS;

export interface FeedbackDeps {
  state: StateStore;
  observer?: BridgeObserver;
}

/** A vote as a platform reports it: which answer (its AnswerRef.answerId), who, and how. */
export interface VoteInput {
  platform: string;
  workspace: string;
  answerId: string;
  userId: string;
  vote: FeedbackVote;
}

export type VoteOutcome =
  | { kind: 'recorded'; record: FeedbackRecord; previous?: FeedbackVote }
  /** The answer is not known (never remembered, or older than the answer TTL). */
  | { kind: 'unknown' };

/**
 * Remembers a finished answer so votes can be cast on it; the reference goes to the last
 * message. A store failure costs only the controls, never the answer.
 */
export async function rememberAnswer(
  state: StateStore,
  log: Logger,
  answer: {
    message: IncomingMessage;
    chatbotUuid: string;
    sessionUuid: string;
    messageUuid: string;
    text: string;
    at: number;
  },
): Promise<AnswerRef | undefined> {
  const { message } = answer;
  try {
    await state.feedback.rememberAnswer({
      messageUuid: answer.messageUuid,
      platform: message.platform,
      workspace: message.workspace,
      channel: message.channel,
      thread: message.thread,
      chatbotUuid: answer.chatbotUuid,
      sessionUuid: answer.sessionUuid,
      question: message.text,
      answerExcerpt: answer.text,
      answeredAt: new Date(answer.at).toISOString(),
    });
    return { answerId: answer.messageUuid };
  } catch (error) {
    log.warn({ err: error }, 'could not remember the answer for feedback: no vote controls');
    return undefined;
  }
}

/** Records (or changes) one person's vote on one answer. */
export async function castVote(deps: FeedbackDeps, input: VoteInput): Promise<VoteOutcome> {
  const answer = await deps.state.feedback.answer(input.platform, input.workspace, input.answerId);
  if (!answer) return { kind: 'unknown' };
  const { record, previous } = await deps.state.feedback.vote(answer, input.userId, input.vote);
  // A click that repeats the vote already kept changes nothing and counts once.
  if (previous !== input.vote) deps.observer?.feedbackVote?.(input.platform, input.vote);
  return { kind: 'recorded', record, ...(previous ? { previous } : {}) };
}

/** Sets the reason of the person's own 👎; undefined when there is no such 👎 (any more). */
export async function giveReason(
  deps: FeedbackDeps,
  input: { id: string; userId: string; reason: string },
): Promise<FeedbackRecord | undefined> {
  // Only the voter may explain their vote (a forged form names someone else's row).
  return deps.state.feedback.setReason(
    input.id,
    input.reason.slice(0, FEEDBACK_REASON_MAX),
    input.userId,
  );
}

/** The words a voter is told (ephemerally, or in the form's confirmation). */
export function voteAcknowledgement(outcome: VoteOutcome): string {
  if (outcome.kind === 'unknown') {
    return 'This answer can no longer be rated (it is too old or was never recorded).';
  }
  const { record, previous } = outcome;
  if (record.vote === 'up') {
    return previous === 'down'
      ? 'Changed your rating to 👍. Thanks!'
      : 'Thanks for the 👍: glad it helped.';
  }
  return previous === 'up'
    ? 'Changed your rating to 👎. Thanks for telling us.'
    : 'Thanks for the 👎: it helps us find the questions the knowledge base answers badly.';
}

export const REASON_THANKS = 'Thanks: your reason was saved with your 👎.';
