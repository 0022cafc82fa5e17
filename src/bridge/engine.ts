// The conversation engine: "a user wrote X in thread T" → pick the chatbot bound to that place,
// find or open T's session, stream the answer into a renderer, read the stored message back for
// its citations, and end every answer in a final visible state. Platform-neutral.
import { silentLogger, type Logger } from '../log.js';
import type { AnswerStream, ServiceClient } from '../service/api.js';
import { createMarkerNumberer, parseCitations } from '../service/citations.js';
import { isServiceError } from '../service/errors.js';
import type { FlatVariables } from '../service/types.js';
import { Limiter } from '../state/limiter.js';
import type { SessionRef, StateStore } from '../state/types.js';
import { ChatbotDirectory } from './chatbots.js';
import { firstQuestionQuery } from './context-query.js';
import { rememberAnswer } from './feedback.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import {
  DEFAULT_RATE_LIMIT_TEXT,
  NOT_CONFIGURED_TEXT,
  emptyAnswerNotice,
  inBandErrorNotice,
  noticeFor,
  rateLimitTextOf,
} from './notices.js';
import { outcomeOf, watchFirstWords, type BridgeObserver } from './observer.js';
import { Renderer, type FinalAnswer } from './renderer.js';
import { resolveSources } from './sources.js';
import {
  threadKey,
  type Conversation,
  type IncomingMessage,
  type Notice,
  type ReplyTarget,
  type ThreadRef,
} from './types.js';

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
}

/** The engine as `chatbridge start` drives it: the conversation, plus shutdown and gauges. */
export interface ConversationEngine extends Conversation {
  /**
   * Ends every answer still running now, and every later one at once, with a notice that the
   * bridge is restarting (graceful shutdown after the drain time ran out).
   */
  interrupt(): void;
  /** Messages waiting for their thread's earlier messages, and answers streaming now. */
  activity(): { waiting: number; streaming: number };
}

/** What an interrupted answer says: the user's message was not lost on purpose. */
export const RESTART_NOTICE: Notice = {
  kind: 'cut_off',
  text: 'The answer was cut off because the bridge is restarting. Please ask again in a moment.',
};

interface Session {
  ref: SessionRef;
  /** Opened for this message: a 404 on it is not a stale mapping. */
  fresh: boolean;
  /** What is sent: the question, with the thread's earlier messages in a thread new to us. */
  query: string;
}

export function createConversation(deps: ConversationDeps): ConversationEngine {
  const { client, state } = deps;
  const log = deps.logger ?? silentLogger;
  const observer = deps.observer ?? {};
  /** Aborted by interrupt(): every answer's signal follows it. */
  const shutdown = new AbortController();
  let waiting = 0;
  const clock: Clock = {
    now: deps.now ?? systemClock.now,
    setTimer: deps.setTimer ?? systemClock.setTimer,
    clearTimer: deps.clearTimer ?? systemClock.clearTimer,
  };
  const chatbots = new ChatbotDirectory(client, clock, deps.chatbotCacheMs);
  const streams = new Limiter(deps.maxConcurrentStreams ?? 200);

  async function resolveChatbot(m: IncomingMessage): Promise<string | undefined> {
    const bound =
      (await state.bindings.get(`${m.platform}:${m.workspace}:${m.bindingChannel ?? m.channel}`)) ??
      (await state.bindings.get(`${m.platform}:${m.workspace}`));
    if (bound) return bound;
    if (!deps.defaultChatbot) return undefined;
    // The default may be a name; an unknown one is passed on as a uuid (the service decides).
    const resolved = await chatbots.resolve(deps.defaultChatbot).catch(() => undefined);
    return resolved ?? deps.defaultChatbot;
  }

  async function openSession(key: string, chatbotUuid: string, m: IncomingMessage) {
    const initial_variables: FlatVariables = {
      platform: m.platform,
      user_name: m.userName,
      user_id: m.userId,
      channel_name: m.channelName ?? m.channel,
    };
    const session = await client.createSession(chatbotUuid, { initial_variables });
    const ref: SessionRef = {
      sessionUuid: session.uuid,
      chatbotUuid,
      createdAt: new Date(clock.now()).toISOString(),
    };
    await state.sessions.set(key, ref);
    return ref;
  }

  async function sessionFor(
    key: string,
    chatbotUuid: string,
    m: IncomingMessage,
    target: ReplyTarget,
  ): Promise<Session> {
    const stored = await state.sessions.get(key);
    // A binding that changed chatbot starts a new conversation with the new one, and so does a
    // thread that was reset (its entry stays, with no sessionUuid).
    if (stored?.sessionUuid && stored.chatbotUuid === chatbotUuid) {
      return { ref: stored, fresh: false, query: m.text };
    }
    // Only a thread never answered in gets its earlier messages (a reset means "forget").
    // Read while the session opens; it never rejects.
    const query = stored ? m.text : firstQuestionQuery(m, target, state, log);
    const ref = await openSession(key, chatbotUuid, m);
    return { ref, fresh: true, query: await query };
  }

  /** Sends the question; a stored session the service no longer knows is replaced once. */
  async function send(
    key: string,
    chatbotUuid: string,
    m: IncomingMessage,
    target: ReplyTarget,
    signal: AbortSignal,
  ) {
    const session = await sessionFor(key, chatbotUuid, m, target);
    const { query } = session;
    try {
      const stream = await client.streamMessage(session.ref.sessionUuid, { query }, { signal });
      return { stream, sessionUuid: session.ref.sessionUuid, query };
    } catch (error) {
      // Safe to re-send: a 404 means the question was never accepted.
      if (!isServiceError(error, 'not_found') || session.fresh) throw error;
      log.info({ thread: key }, 'stored session unknown to the service: opening a new one');
      const ref = await openSession(key, chatbotUuid, m);
      const stream = await client.streamMessage(ref.sessionUuid, { query }, { signal });
      return { stream, sessionUuid: ref.sessionUuid, query };
    }
  }

  /** Reads the stored message back: the authoritative text, citations and in-band errors. */
  async function finalAnswer(
    sessionUuid: string,
    chatbotUuid: string,
    query: string,
    streamed: string,
    signal: AbortSignal,
  ): Promise<{ answer: FinalAnswer; messageUuid?: string }> {
    const messages = await client.listMessages(sessionUuid, { signal }).catch((error: unknown) => {
      log.warn({ err: error, session: sessionUuid }, 'reading the stored message failed');
      return [];
    });
    const stored =
      messages.findLast((msg) => msg.query === query) ??
      messages.findLast((msg) => msg.query.trim() === query.trim());
    const response = stored?.response || streamed;
    const citeData = stored?.cite_data ?? {};
    let show = false;
    if (Object.keys(citeData).length > 0) {
      const chatbot = await chatbots.get(chatbotUuid).catch((error: unknown) => {
        log.warn({ err: error }, 'reading chatbot settings failed');
        return undefined;
      });
      // Settings unknown: the service only cites when citations are on, so show them.
      show = chatbot ? chatbot.meta.show_citations === true : true;
    }
    // With citations off every marker goes: parsed against no entries, all are unknown.
    const { text, citations } = parseCitations({ response, cite_data: show ? citeData : {} });
    const sources = show
      ? await resolveSources(citations, citeData, state.sources, (error) =>
          log.warn({ err: error }, 'source registry lookup failed'),
        )
      : [];
    const answer: FinalAnswer = { text, sources };
    if (stored?.error_message) answer.notice = inBandErrorNotice(stored.error_message);
    else if (text.trim() === '') answer.notice = emptyAnswerNotice();
    return { answer, ...(stored?.uuid ? { messageUuid: stored.uuid } : {}) };
  }

  async function failedAnswer(
    error: unknown,
    streamed: string,
    chatbotUuid: string | undefined,
    signal: AbortSignal,
  ): Promise<FinalAnswer> {
    const partial =
      isServiceError(error) && (error.partialText ?? '').length > streamed.length
        ? error.partialText!
        : streamed;
    const stage = partial !== '' ? 'during' : 'before';
    let rateLimitText = rateLimitTextOf(error);
    if (isServiceError(error, 'rate_limited') && !rateLimitText && chatbotUuid) {
      const chatbot = await chatbots.get(chatbotUuid).catch(() => undefined);
      rateLimitText = chatbot?.meta.rate_limit_message?.trim() || undefined;
    }
    const notice = shutdown.signal.aborted
      ? RESTART_NOTICE
      : signal.aborted
        ? { kind: 'cut_off' as const, text: 'The answer was cut off before it was complete.' }
        : noticeFor(error, stage, rateLimitText ?? DEFAULT_RATE_LIMIT_TEXT);
    // Without the stored citations the markers cannot be resolved: they are left out.
    return { text: parseCitations({ response: partial, cite_data: {} }).text, sources: [], notice };
  }

  async function answer(
    m: IncomingMessage,
    target: ReplyTarget,
    lockSignal: AbortSignal,
    receivedAt: number,
  ) {
    const key = threadKey(m);
    const signal = AbortSignal.any([lockSignal, shutdown.signal]);
    // First words are the answer's own text showing, not a notice alone laid down at the end.
    let noticeOnly = false;
    target = watchFirstWords(target, () => {
      if (!noticeOnly) observer.firstWords?.(m.platform, clock.now() - receivedAt);
    });
    // Live footnotes: markers numbered in order of first appearance (see service/citations.ts).
    const numberer = createMarkerNumberer();
    const renderer = new Renderer(target, { clock, logger: log, transform: numberer.render });
    renderer.start();
    let streamed = '';
    let chatbotUuid: string | undefined;
    let final: FinalAnswer;
    try {
      signal.throwIfAborted();
      chatbotUuid = await resolveChatbot(m);
      if (!chatbotUuid) {
        final = {
          text: '',
          sources: [],
          notice: { kind: 'not_configured', text: NOT_CONFIGURED_TEXT },
        };
      } else {
        const release = await streams.acquire();
        let sessionUuid: string;
        let query: string;
        try {
          let stream: AnswerStream;
          ({ stream, sessionUuid, query } = await send(key, chatbotUuid, m, target, signal));
          for await (const piece of stream) {
            streamed += piece;
            renderer.push(streamed);
          }
        } finally {
          release();
        }
        const read = await finalAnswer(sessionUuid, chatbotUuid, query, streamed, signal);
        final = read.answer;
        // Only a complete answer the service stored can be rated, where the surface takes votes.
        if (target.limits.feedback && read.messageUuid && !final.notice) {
          const ref = await rememberAnswer(state, log, {
            message: m,
            chatbotUuid,
            sessionUuid,
            messageUuid: read.messageUuid,
            text: final.text,
            at: clock.now(),
          });
          if (ref) final.feedback = ref;
        }
      }
    } catch (error) {
      log.warn({ err: error, thread: key }, 'answer failed');
      final = await failedAnswer(error, streamed, chatbotUuid, signal);
    }
    noticeOnly = final.text.trim() === '';
    await renderer.finish(final);
    await target.stopWorking().catch((error: unknown) => log.debug({ err: error }, 'stopWorking'));
    observer.answerFinished?.(m.platform, outcomeOf(final.notice), clock.now() - receivedAt);
  }

  return {
    async handle(message, target) {
      const receivedAt = clock.now();
      waiting += 1;
      let queued = true;
      const leaveQueue = () => {
        if (queued) waiting -= 1;
        queued = false;
      };
      try {
        await state.locks.run(threadKey(message), (signal) => {
          leaveQueue();
          return answer(message, target, signal, receivedAt);
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
    },
    interrupt() {
      if (!shutdown.signal.aborted) shutdown.abort(new Error('the bridge is shutting down'));
    },
    activity() {
      return { waiting, streaming: streams.running };
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
