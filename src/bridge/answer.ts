// One answer, start to end, inside its thread's lock: the renderer starts at once, the chatbot
// and session are resolved, the stream is read (under the process-wide bound on answers
// streaming at once), the stored message is read back, and every outcome, failures included,
// ends in a final state on screen and one observation.
import type { LimitFunction } from 'p-limit';
import type { Logger } from '../log.js';
import type { ServiceClient } from '../service/api.js';
import { createMarkerNumberer } from '../service/citations.js';
import type { StateStore } from '../state/types.js';
import type { ChatbotDirectory } from './chatbots.js';
import type { Clock } from './clock.js';
import { rememberAnswer } from './feedback.js';
import { failedAnswer, readFinalAnswer } from './final-answer.js';
import { NOT_CONFIGURED_TEXT } from './notices.js';
import { outcomeOf, watchFirstWords, type BridgeObserver } from './observer.js';
import { Renderer, type FinalAnswer } from './renderer.js';
import type { ThreadSessions } from './sessions.js';
import { closeInterrupted, recordingOpened, storedQuestion } from './takeover.js';
import { threadKey, type AnswerJob, type IncomingMessage, type ReplyTarget } from './types.js';

export interface AnswerDeps {
  client: Pick<ServiceClient, 'listMessages'>;
  state: StateStore;
  chatbots: Pick<ChatbotDirectory, 'get'>;
  sessions: Pick<ThreadSessions, 'chatbotFor' | 'send'>;
  /** Bounds the answers streaming at once across all threads. */
  streams: LimitFunction;
  clock: Clock;
  log: Logger;
  observer: BridgeObserver;
  /** Aborted when the bridge shuts down: every answer's signal follows it. */
  shutdown: AbortSignal;
  /** Takeover: how long to wait for the service to store the answer a dead replica asked for. */
  takeoverWaitMs: number;
}

/** The message's turn in its thread: never rejects (every failure ends in a notice). */
export async function answerMessage(
  deps: AnswerDeps,
  m: IncomingMessage,
  target: ReplyTarget,
  lockSignal: AbortSignal,
  receivedAt: number,
  job?: AnswerJob,
): Promise<void> {
  const { clock, log, observer } = deps;
  const signal = AbortSignal.any([lockSignal, deps.shutdown]);
  if (job?.previous?.delivered) {
    // The dead replica showed the whole answer and died before it finished the event: only its
    // sign of work may be left on.
    log.info({ thread: threadKey(m) }, 'takeover: the answer was already delivered');
    await target.stopWorking().catch((error: unknown) => log.debug({ err: error }, 'stopWorking'));
    return;
  }
  if (job) {
    // A takeover first ends what the dead replica left open; every answer records its messages.
    if (job.previous) await closeInterrupted(target, job.previous, log);
    target = recordingOpened(target, job);
  }
  // First words are the answer's own text showing, not a notice alone laid down at the end.
  let noticeOnly = false;
  target = watchFirstWords(target, () => {
    if (!noticeOnly) observer.firstWords?.(m.platform, clock.now() - receivedAt);
  });
  // Live footnotes: markers numbered in order of first appearance (see service/citations.ts).
  const numberer = createMarkerNumberer();
  const renderer = new Renderer(target, { clock, logger: log, transform: numberer.render });
  renderer.start();
  const progress: Progress = { streamed: '', chatbotUuid: undefined };
  let final: FinalAnswer;
  let handedOff = false;
  try {
    signal.throwIfAborted();
    final = await streamAnswer(deps, { m, target, signal, renderer, progress, job });
  } catch (error) {
    log.warn({ err: error, thread: threadKey(m) }, 'answer failed');
    // Cut by shutdown: when another process will take the event over, it gives the answer.
    handedOff = deps.shutdown.aborted && ((await job?.canHandOff?.()) ?? false);
    final = await failedAnswer(deps, {
      error,
      streamed: progress.streamed,
      chatbotUuid: progress.chatbotUuid,
      signal,
      shutdown: deps.shutdown,
      handedOff,
    });
  }
  noticeOnly = final.text.trim() === '';
  await renderer.finish(final);
  // On screen in full: a replica taking over from here on must not deliver it again.
  if (job && !handedOff) await job.record({ delivered: true });
  if (handedOff && job?.handOff) {
    // Closed here already: the taker has nothing left open to close.
    await job.record({ opened: [] });
    await job.handOff();
  }
  await target.stopWorking().catch((error: unknown) => log.debug({ err: error }, 'stopWorking'));
  observer.answerFinished?.(m.platform, outcomeOf(final.notice), clock.now() - receivedAt);
}

/** How far an answer got: what a failure keeps. */
interface Progress {
  streamed: string;
  chatbotUuid: string | undefined;
}

interface Turn {
  m: IncomingMessage;
  target: ReplyTarget;
  signal: AbortSignal;
  renderer: Renderer;
  progress: Progress;
  job: AnswerJob | undefined;
}

/** Streams the answer into the renderer and reads it back; rejects on any failure. */
async function streamAnswer(deps: AnswerDeps, turn: Turn): Promise<FinalAnswer> {
  const { m, target, signal, renderer, progress, job } = turn;
  const chatbotUuid = await deps.sessions.chatbotFor(m);
  progress.chatbotUuid = chatbotUuid;
  if (!chatbotUuid) {
    return { text: '', sources: [], notice: { kind: 'not_configured', text: NOT_CONFIGURED_TEXT } };
  }
  // A takeover whose question the service already took reads that answer: never asked twice.
  const asked = await storedQuestion(
    { client: deps.client, clock: deps.clock, log: deps.log, waitMs: deps.takeoverWaitMs },
    job?.previous,
    signal,
  );
  const { sessionUuid, query } =
    asked ??
    (await deps.streams(async () => {
      const sent = await deps.sessions.send(threadKey(m), chatbotUuid, m, target, signal);
      await job?.record({ sessionUuid: sent.sessionUuid, query: sent.query });
      for await (const piece of sent.stream) {
        progress.streamed += piece;
        renderer.push(progress.streamed);
      }
      return sent;
    }));
  const read = await readFinalAnswer(deps, {
    sessionUuid,
    chatbotUuid,
    query,
    streamed: progress.streamed,
    signal,
  });
  const final = read.answer;
  // Only a complete answer the service stored can be rated, where the surface takes votes.
  if (target.limits.feedback && read.messageUuid && !final.notice) {
    const ref = await rememberAnswer(deps.state, deps.log, {
      message: m,
      chatbotUuid,
      sessionUuid,
      messageUuid: read.messageUuid,
      text: final.text,
      at: deps.clock.now(),
    });
    if (ref) final.feedback = ref;
  }
  return final;
}
