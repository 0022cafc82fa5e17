// An in-memory ServiceClient: chatbots, sessions and stored messages, with streams the test
// drives piece by piece (or that answer at once) and errors injected where the test says.
import type { AnswerStream, CallOptions, ServiceClient } from '../../../src/service/api.js';
import { ServiceError } from '../../../src/service/errors.js';
import type {
  Chatbot,
  CiteEntry,
  FlatVariables,
  Message,
  Session,
  SessionCreateInput,
  StreamInput,
} from '../../../src/service/types.js';

export interface StoredReply {
  response?: string;
  citeData?: Record<string, CiteEntry>;
  errorMessage?: string;
}

/** A stream whose pieces, end and failure are pushed by the test. */
export class ScriptedStream implements AnswerStream {
  private text = '';
  private readonly queue: string[] = [];
  private finished = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  cancelled = false;
  /** Called by the fake client when the stream ends cleanly: stores the message. */
  onEnd: (received: string, stored: StoredReply) => void = () => {};

  constructor(
    readonly sessionUuid = '',
    readonly query = '',
  ) {}

  get received(): string {
    return this.text;
  }

  push(...pieces: string[]): void {
    this.queue.push(...pieces);
    this.poke();
  }

  end(stored: StoredReply = {}): void {
    this.finished = true;
    this.onEnd(this.text + this.queue.join(''), stored);
    this.poke();
  }

  /** Breaks the stream; the error's partialText is set to what was received, like the client. */
  fail(kind: ServiceError['kind'], message = 'stream broke'): void {
    this.failure = { kind, message };
    this.poke();
  }

  cancel(): void {
    this.cancelled = true;
    this.finished = true;
    this.poke();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const piece = this.queue.shift();
      if (piece !== undefined) {
        this.text += piece;
        yield piece;
        continue;
      }
      if (this.failure) {
        const { kind, message } = this.failure as { kind: ServiceError['kind']; message: string };
        throw new ServiceError(kind, message, { partialText: this.text });
      }
      if (this.finished) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

interface FakeSession {
  chatbotUuid: string;
  variables?: FlatVariables;
  messages: Message[];
}

export function chatbot(uuid: string, meta: Partial<Chatbot['meta']> = {}): Chatbot {
  return {
    uuid,
    name: `bot ${uuid}`,
    created_at: '2024-01-01T00:00:00Z',
    modified_at: '2024-01-01T00:00:00Z',
    meta: {
      rate_limit: [20, 60],
      rate_limit_message: 'Too many messages',
      show_citations: true,
      visibility: 'private',
      ...meta,
    },
  };
}

function unused(name: string): never {
  throw new Error(`fake client: ${name} is not used by the engine`);
}

export class FakeClient implements ServiceClient {
  chatbots: Chatbot[] = [chatbot('bot-1')];
  readonly sessions = new Map<string, FakeSession>();
  readonly streamCalls: Array<{ sessionUuid: string; query: string }> = [];
  listChatbotsCalls = 0;
  /**
   * Decides each stream: return a ScriptedStream to drive it, throw to refuse the query, or
   * return undefined to answer with reply().
   */
  onStream:
    ((call: { sessionUuid: string; query: string }) => ScriptedStream | undefined) | undefined;
  /** Without onStream: the whole answer at once, in these pieces. */
  reply: (query: string) => { pieces: string[] } & StoredReply = (q) => ({
    pieces: [`Answer to ${q}`],
  });
  failListMessages: Error | undefined;
  failListChatbots: Error | undefined;
  private nextId = 1;

  /** The service forgets a session (a stored mapping becomes stale). */
  forget(sessionUuid: string): void {
    this.sessions.delete(sessionUuid);
  }

  async listChatbots(): Promise<Chatbot[]> {
    this.listChatbotsCalls += 1;
    if (this.failListChatbots) throw this.failListChatbots;
    return this.chatbots;
  }

  async createSession(chatbotUuid: string, input?: SessionCreateInput): Promise<Session> {
    if (!this.chatbots.some((c) => c.uuid === chatbotUuid)) {
      throw new ServiceError('not_found', 'not found (404 on POST /chatbot/x/session/create)');
    }
    const uuid = `session-${this.nextId++}`;
    this.sessions.set(uuid, { chatbotUuid, variables: input?.initial_variables, messages: [] });
    return { uuid, created_at: '', modified_at: '', initial_variables: input?.initial_variables };
  }

  async streamMessage(
    sessionUuid: string,
    input: StreamInput,
    _options?: CallOptions,
  ): Promise<AnswerStream> {
    const session = this.sessions.get(sessionUuid);
    const call = { sessionUuid, query: input.query };
    this.streamCalls.push(call);
    if (!session) throw new ServiceError('not_found', 'not found (404 on POST /session/x)');
    const stream = this.onStream ? this.onStream(call) : undefined;
    const scripted = stream ?? new ScriptedStream(sessionUuid, input.query);
    scripted.onEnd = (received, stored) => {
      session.messages.push(this.message(input.query, stored.response ?? received, stored));
    };
    if (!stream) {
      const { pieces, ...stored } = this.reply(input.query);
      scripted.push(...pieces);
      scripted.end(stored);
    }
    return scripted;
  }

  async listMessages(sessionUuid: string): Promise<Message[]> {
    if (this.failListMessages) throw this.failListMessages;
    const session = this.sessions.get(sessionUuid);
    if (!session) throw new ServiceError('not_found', 'not found (404 on GET /messages)');
    return session.messages;
  }

  private message(query: string, response: string, stored: StoredReply): Message {
    const message: Message = {
      uuid: `message-${this.nextId++}`,
      query,
      response,
      cite_data_json: JSON.stringify(stored.citeData ?? {}),
      cite_data: stored.citeData ?? {},
      finish_reason: 'stop',
      meta_json: '{}',
      meta: {},
      created_at: '',
      modified_at: '',
    };
    if (stored.errorMessage) message.error_message = stored.errorMessage;
    return message;
  }

  async close(): Promise<void> {}
  createChatbot = () => unused('createChatbot');
  listAgents = () => unused('listAgents');
  createAgent = () => unused('createAgent');
  updateAgent = () => unused('updateAgent');
  addQaSource = () => unused('addQaSource');
  addUrlSource = () => unused('addUrlSource');
  uploadSource = () => unused('uploadSource');
  renameSource = () => unused('renameSource');
  listSourceTags = () => unused('listSourceTags');
  createSourceTag = () => unused('createSourceTag');
  updateSourceTag = () => unused('updateSourceTag');
}
