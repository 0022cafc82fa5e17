// The whole chain for end-to-end tests and the benchmark: the real engine and service client
// against the local service (with scripted answers where a test needs exact text), the Slack
// adapter against the fake Web API.
import { createConversation, type BridgeObserver } from '../../src/bridge/index.js';
import { startLocalService, type LocalService } from '../../src/local-service/index.js';
import { createDefaultKnowledge } from '../../src/local-service/knowledge-default.js';
import type { KnowledgePort } from '../../src/local-service/knowledge-port.js';
import { fromArray } from '../../src/local-service/pieces.js';
import { createServiceClient, type ProxySettings } from '../../src/service/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { CiteEntry } from '../../src/service/types.js';
import { openState } from '../../src/state/index.js';
import type { FakeTime } from '../fake-time.js';
import type { FakeSlackOptions } from './fake-slack.js';
import { TEAM } from './fake-slack.js';
import { Harness } from './harness.js';
import { sharedConverters } from '../converters.js';

export interface ScriptedAnswer {
  pieces: string[];
  citations?: Record<string, CiteEntry>;
}

export interface Chain {
  harness: Harness;
  service: LocalService;
  client: ServiceClient;
  chatbotUuid: string;
  /** Answers given for these exact queries instead of the built-in retrieval. */
  scripted: Map<string, ScriptedAnswer>;
  /** An answer chosen by reading the query (a stand-in for a model), after `scripted`. */
  answerFor?: (query: string) => ScriptedAnswer | undefined;
  close(): Promise<void>;
}

export interface ChainOptions {
  fake?: FakeSlackOptions;
  showCitations?: boolean;
  /** Pause before each streamed piece after the first (local service pacer). */
  pace?: (pieceIndex: number, signal: AbortSignal) => Promise<void>;
  admins?: string[];
  methodLimits?: Record<string, number>;
  /** Told of API calls and feedback votes (metrics). */
  observer?: BridgeObserver;
  /** Fake time the chain runs on (test/fake-time.ts). */
  time?: FakeTime;
  /** The chatbot's rate limit (messages, seconds); [100, 60] by default. */
  rateLimit?: [number, number];
  /** The proxy the adapter's Slack calls go through. */
  proxy?: ProxySettings;
}

export async function startChain(options: ChainOptions = {}): Promise<Chain> {
  const scripted = new Map<string, ScriptedAnswer>();
  const holder: Pick<Chain, 'answerFor'> = {};
  const base = await createDefaultKnowledge({
    refusePrivateUrls: false,
    pool: sharedConverters,
    maxFetchBytes: 1024 * 1024,
    fetchTimeoutMs: 5000,
  });
  const knowledge: KnowledgePort = {
    extractText: (name, bytes, type) => base.extractText(name, bytes, type),
    fetchUrl: (url, signal) => base.fetchUrl(url, signal),
    close: () => base.close(),
    answer(request, signal) {
      const script = scripted.get(request.query) ?? holder.answerFor?.(request.query);
      if (!script) return base.answer(request, signal);
      return { pieces: fromArray(script.pieces), citations: () => script.citations ?? {} };
    },
  };
  const service = await startLocalService({
    apiKeys: ['test-key'],
    knowledge,
    ...(options.pace ? { pacer: options.pace } : {}),
  });
  const client = createServiceClient({ baseUrl: service.url, apiKey: 'test-key' });
  const state = await openState('memory://');
  const chatbot = await client.createChatbot({
    name: 'Support',
    show_citations: options.showCitations ?? false,
    rate_limit: options.rateLimit ?? [100, 60],
  });
  await state.bindings.set(`slack:${TEAM}`, chatbot.uuid);
  const conversation = createConversation({ client, state });
  const harness = await Harness.start({
    conversation,
    client,
    state,
    ...(options.fake ? { fake: options.fake } : {}),
    ...(options.admins ? { admins: options.admins } : {}),
    ...(options.methodLimits ? { methodLimits: options.methodLimits } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.time ? { time: options.time } : {}),
    ...(options.proxy ? { proxy: options.proxy } : {}),
  });
  return {
    harness,
    service,
    client,
    chatbotUuid: chatbot.uuid,
    scripted,
    get answerFor() {
      return holder.answerFor;
    },
    set answerFor(fn) {
      holder.answerFor = fn;
    },
    async close() {
      await harness.close();
      await client.close();
      await service.close();
    },
  };
}

/** The queries the service received in a thread's session, oldest first. */
export async function storedQueries(
  chain: Chain,
  channel: string,
  thread: string,
): Promise<string[]> {
  const ref = await chain.harness.state.sessions.get(`slack:${TEAM}:${channel}:${thread}`);
  if (!ref) return [];
  return (await chain.client.listMessages(ref.sessionUuid)).map((m) => m.query);
}

/** The stored answers of a thread's session, oldest first. */
export async function storedAnswers(
  chain: Chain,
  channel: string,
  thread: string,
): Promise<string[]> {
  const ref = await chain.harness.state.sessions.get(`slack:${TEAM}:${channel}:${thread}`);
  if (!ref) return [];
  return (await chain.client.listMessages(ref.sessionUuid)).map((m) => m.response);
}
