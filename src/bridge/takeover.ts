// Taking over an answer a dead replica left half-done (its kept event's lease ran out): what it
// had opened is closed with a short notice, and when it had already sent the question, the
// answer the service stored is delivered instead of asking again. While answering, the engine
// records each message it opens and the question it sends, for whoever may take over from it.
import type { Logger } from '../log.js';
import type { ServiceClient } from '../service/api.js';
import type { Clock } from './clock.js';
import { withOpenMessage } from './observer.js';
import type { AnswerJob, AnswerProgress, ReplyMessage, ReplyTarget } from './types.js';

/** What a message a dead replica left open ends with. */
export const INTERRUPTED_TEXT = '_This answer was interrupted. The complete answer follows below._';
/** How often the stored messages are read while waiting for the service to store the answer. */
const POLL_MS = [100, 250, 500, 1_000, 2_000] as const;

/**
 * The target, with every opened message's id recorded (awaited: a crash right after finds it).
 * The intent is recorded before the platform is asked (`opening`): a crash between its answer
 * and the id's record leaves the marker, and the taker looks for the message no id names.
 */
export function recordingOpened(target: ReplyTarget, job: AnswerJob): ReplyTarget {
  const opened: string[] = [];
  let pending = 0;
  const openMessage = async (text: string): Promise<ReplyMessage> => {
    pending += 1;
    await job.record({ opening: true });
    const message = await target.openMessage(text);
    pending -= 1;
    if (message.id !== undefined) opened.push(message.id);
    await job.record({ opened: [...opened], opening: pending > 0 });
    return message;
  };
  return withOpenMessage(target, openMessage);
}

/** Ends what the previous holder left open. Never rejects: failures are logged. */
export async function closeInterrupted(
  target: ReplyTarget,
  previous: AnswerProgress,
  log: Logger,
): Promise<void> {
  const opened = previous.opened ?? [];
  const unrecorded = previous.opening === true;
  if ((opened.length === 0 && !unrecorded) || !target.closeInterrupted) return;
  try {
    await target.closeInterrupted(opened, INTERRUPTED_TEXT, { unrecorded });
  } catch (error) {
    log.warn({ err: error }, 'takeover: closing the interrupted messages failed');
  }
}

export interface StoredQuestionDeps {
  client: Pick<ServiceClient, 'listMessages'>;
  clock: Clock;
  log: Logger;
  /** How long to wait for the service to store an answer it was streaming. */
  waitMs: number;
}

/**
 * The question the previous holder sent, once the service has stored its answer: then it is
 * read back instead of being asked twice. Undefined when nothing was sent, or the answer was
 * not stored within waitMs (the service never took the question: it is sent again).
 */
export async function storedQuestion(
  deps: StoredQuestionDeps,
  previous: AnswerProgress | undefined,
  signal: AbortSignal,
): Promise<{ sessionUuid: string; query: string } | undefined> {
  const { sessionUuid, query } = previous ?? {};
  if (!sessionUuid || query === undefined) return undefined;
  const deadline = deps.clock.now() + deps.waitMs;
  for (let attempt = 0; ; attempt++) {
    signal.throwIfAborted();
    const messages = await deps.client.listMessages(sessionUuid, { signal }).catch((error) => {
      deps.log.warn({ err: error, session: sessionUuid }, 'takeover: reading the session failed');
      return [];
    });
    if (messages.some((m) => m.query === query || m.query.trim() === query.trim())) {
      return { sessionUuid, query };
    }
    const wait = POLL_MS[Math.min(attempt, POLL_MS.length - 1)]!;
    if (deps.clock.now() + wait > deadline) {
      deps.log.info({ session: sessionUuid }, 'takeover: no stored answer, asking again');
      return undefined;
    }
    await new Promise<void>((resolve) => deps.clock.setTimer(resolve, wait));
  }
}
