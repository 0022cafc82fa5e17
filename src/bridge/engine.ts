// The conversation engine: "a user wrote X in thread T" → pick the chatbot bound to that place,
// find or open T's session, stream the answer into a renderer, read the stored message back for
// its citations, and end every answer in a final visible state. Platform-neutral. This file
// wires the parts: sessions.ts (chatbot and session), answer.ts (one answer), final-answer.ts
// (how it ends); the thread's lock keeps one answer at a time per thread.
import pLimit from 'p-limit';
import { silentLogger, type Logger } from '../log.js';
import type { ServiceClient } from '../service/api.js';
import type { StateStore } from '../state/types.js';
import { answerMessage, type AnswerDeps } from './answer.js';
import { ChatbotDirectory } from './chatbots.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { noticeFor } from './notices.js';
import type { BridgeObserver } from './observer.js';
import { Renderer } from './renderer.js';
import { ThreadSessions } from './sessions.js';
import {
  threadKey,
  type AnswerJob,
  type Conversation,
  type IncomingMessage,
  type ReplyTarget,
  type ThreadRef,
} from './types.js';

export { RESTART_NOTICE } from './final-answer.js';

export interface ConversationDeps {
  client: ServiceClient;
  state: StateStore;
  /** CHATBRIDGE_CHATBOT: the chatbot (uuid or name) for places with no binding. */
  defaultChatbot?: string;
  logger?: Logger;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => TimerHandle;
  clearTimer?: (handle: TimerHandle) => void;
  /** Answers streaming at once across all threads; more wait in arrival order. Default 200. */
  maxConcurrentStreams?: number;
  /** How long chatbot settings (show_citations, rate_limit_message) are cached. Default 30 s. */
  chatbotCacheMs?: number;
  /** Told how answers end and how long they take (metrics). */
  observer?: BridgeObserver;
  /**
   * Takeover of a dead replica's answer: how long to wait for the service to store the answer
   * to the question it had sent, before asking again. Default 60 s.
   */
  takeoverWaitMs?: number;
}

/** The engine as `chatbridge start` drives it: the conversation, plus shutdown and gauges. */
export interface ConversationEngine extends Conversation {
  /**
   * Ends every answer still running now, and every later one at once (graceful shutdown after
   * the drain time ran out): with the interrupted notice where another process takes its kept
   * event over (answer.ts), else with a notice that the bridge is restarting.
   */
  interrupt(): void;
  /** Messages waiting for their thread's earlier messages, and answers streaming now. */
  activity(): { waiting: number; streaming: number };
}

export function createConversation(deps: ConversationDeps): ConversationEngine {
  const { client, state } = deps;
  const log = deps.logger ?? silentLogger;
  /** Aborted by interrupt(): every answer's signal follows it. */
  const shutdown = new AbortController();
  const clock: Clock = {
    now: deps.now ?? systemClock.now,
    setTimer: deps.setTimer ?? systemClock.setTimer,
    clearTimer: deps.clearTimer ?? systemClock.clearTimer,
  };
  const chatbots = new ChatbotDirectory(client, clock, deps.chatbotCacheMs);
  const answers: AnswerDeps = {
    client,
    state,
    chatbots,
    sessions: new ThreadSessions({
      client,
      state,
      chatbots,
      clock,
      log,
      defaultChatbot: deps.defaultChatbot,
    }),
    streams: pLimit(deps.maxConcurrentStreams ?? 200),
    clock,
    log,
    observer: deps.observer ?? {},
    shutdown: shutdown.signal,
    takeoverWaitMs: deps.takeoverWaitMs ?? 60_000,
  };
  const queue = new ThreadQueue(answers);
  return {
    handle: (message, target, job) => queue.handle(message, target, job),
    interrupt() {
      if (!shutdown.signal.aborted) shutdown.abort(new Error('the bridge is shutting down'));
    },
    activity() {
      return { waiting: queue.waiting, streaming: answers.streams.activeCount };
    },
    async hasSession(thread: ThreadRef) {
      // A reset thread keeps its entry: it is still a conversation with the bot.
      return (await state.sessions.get(threadKey(thread))) !== undefined;
    },
    async reset(thread: ThreadRef) {
      // In the thread's queue, so messages sent before the reset are answered in the old session.
      const key = threadKey(thread);
      await state.locks.run(key, () => state.sessions.reset(key));
    },
  };
}

/** Messages wait for their thread's lock, then are answered; counts those still waiting. */
export class ThreadQueue {
  waiting = 0;

  constructor(private readonly deps: AnswerDeps) {}

  async handle(message: IncomingMessage, target: ReplyTarget, job?: AnswerJob): Promise<void> {
    const { clock, log, observer, state } = this.deps;
    const receivedAt = clock.now();
    this.waiting += 1;
    let queued = true;
    const leaveQueue = () => {
      if (queued) this.waiting -= 1;
      queued = false;
    };
    try {
      await state.locks.run(threadKey(message), (signal) => {
        leaveQueue();
        return answerMessage(this.deps, message, target, signal, receivedAt, job);
      });
    } catch (error) {
      leaveQueue();
      // Only the lock itself can fail here (answer() never throws): nothing was shown yet.
      log.error({ err: error, thread: threadKey(message) }, 'could not take the thread lock');
      const renderer = new Renderer(target, { clock, logger: log });
      await renderer.finish({ text: '', sources: [], notice: noticeFor(error, 'before', '') });
      await target.stopWorking().catch(() => {});
      observer.answerFinished?.(message.platform, 'error', clock.now() - receivedAt);
    }
  }
}
