// Which chatbot answers a message and which of its sessions the thread talks in: the binding of
// the place (else the workspace's, else the configured default), the session stored for the
// thread (a new one when none is, the chatbot changed or the thread was reset), and the send that
// replaces, once, a stored session the service no longer knows.
import type { Logger } from '../log.js';
import type { AnswerStream, ServiceClient } from '../service/api.js';
import { isServiceError } from '../service/errors.js';
import type { FlatVariables } from '../service/types.js';
import type { SessionRef, StateStore } from '../state/types.js';
import type { ChatbotDirectory } from './chatbots.js';
import type { Clock } from './clock.js';
import { firstQuestionQuery } from './context-query.js';
import type { IncomingMessage, ReplyTarget } from './types.js';

export interface SessionDeps {
  client: Pick<ServiceClient, 'createSession' | 'streamMessage'>;
  state: StateStore;
  chatbots: Pick<ChatbotDirectory, 'resolve'>;
  clock: Pick<Clock, 'now'>;
  log: Logger;
  /** CHATBRIDGE_CHATBOT: the chatbot (uuid or name) for places with no binding. */
  defaultChatbot?: string | undefined;
}

interface Session {
  ref: SessionRef;
  /** Opened for this message: a 404 on it is not a stale mapping. */
  fresh: boolean;
  /** What is sent: the question, with the thread's earlier messages in a thread new to us. */
  query: string;
}

/** What send() started: the answer's stream, in which session, and the query sent. */
export interface SentQuestion {
  stream: AnswerStream;
  sessionUuid: string;
  query: string;
}

export class ThreadSessions {
  constructor(private readonly deps: SessionDeps) {}

  /** The chatbot answering in the message's place, or undefined when none is configured. */
  async chatbotFor(m: IncomingMessage): Promise<string | undefined> {
    const { state, defaultChatbot } = this.deps;
    const bound =
      (await state.bindings.get(`${m.platform}:${m.workspace}:${m.bindingChannel ?? m.channel}`)) ??
      (await state.bindings.get(`${m.platform}:${m.workspace}`));
    if (bound) return bound;
    if (!defaultChatbot) return undefined;
    // The default may be a name; an unknown one is passed on as a uuid (the service decides).
    const resolved = await this.deps.chatbots.resolve(defaultChatbot).catch(() => undefined);
    return resolved ?? defaultChatbot;
  }

  /** Sends the question; a stored session the service no longer knows is replaced once. */
  async send(
    key: string,
    chatbotUuid: string,
    m: IncomingMessage,
    target: ReplyTarget,
    signal: AbortSignal,
  ): Promise<SentQuestion> {
    const { client, log } = this.deps;
    const session = await this.sessionFor(key, chatbotUuid, m, target);
    const { query } = session;
    try {
      const stream = await client.streamMessage(session.ref.sessionUuid, { query }, { signal });
      return { stream, sessionUuid: session.ref.sessionUuid, query };
    } catch (error) {
      // Safe to re-send: a 404 means the question was never accepted.
      if (!isServiceError(error, 'not_found') || session.fresh) throw error;
      log.info({ thread: key }, 'stored session unknown to the service: opening a new one');
      const ref = await this.open(key, chatbotUuid, m);
      const stream = await client.streamMessage(ref.sessionUuid, { query }, { signal });
      return { stream, sessionUuid: ref.sessionUuid, query };
    }
  }

  private async sessionFor(
    key: string,
    chatbotUuid: string,
    m: IncomingMessage,
    target: ReplyTarget,
  ): Promise<Session> {
    const { state, log } = this.deps;
    const stored = await state.sessions.get(key);
    // A binding that changed chatbot starts a new conversation with the new one, and so does a
    // thread that was reset (its entry stays, with no sessionUuid).
    if (stored?.sessionUuid && stored.chatbotUuid === chatbotUuid) {
      return { ref: stored, fresh: false, query: m.text };
    }
    // Only a thread never answered in gets its earlier messages (a reset means "forget").
    // Read while the session opens; it never rejects.
    const query = stored ? m.text : firstQuestionQuery(m, target, state, log);
    const ref = await this.open(key, chatbotUuid, m);
    return { ref, fresh: true, query: await query };
  }

  private async open(key: string, chatbotUuid: string, m: IncomingMessage): Promise<SessionRef> {
    const initial_variables: FlatVariables = {
      platform: m.platform,
      user_name: m.userName,
      user_id: m.userId,
      channel_name: m.channelName ?? m.channel,
    };
    const session = await this.deps.client.createSession(chatbotUuid, { initial_variables });
    const ref: SessionRef = {
      sessionUuid: session.uuid,
      chatbotUuid,
      createdAt: new Date(this.deps.clock.now()).toISOString(),
    };
    await this.deps.state.sessions.set(key, ref);
    return ref;
  }
}
