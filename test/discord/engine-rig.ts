// The whole path for Discord tests and the bench: the fake Discord, the real engine, the real
// service client and the local service, whose answers the test scripts (pieces and citations)
// and releases piece by piece through the service's pacer.
import { createConversation, type BridgeObserver } from '../../src/bridge/index.js';
import { startLocalService, type LocalService } from '../../src/local-service/index.js';
import { createDefaultKnowledge } from '../../src/local-service/knowledge-default.js';
import type { KnowledgePort } from '../../src/local-service/knowledge-port.js';
import { createServiceClient, type ProxySettings } from '../../src/service/index.js';
import type { Logger } from '../../src/log.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { CiteEntry } from '../../src/service/types.js';
import { openState, type State } from '../../src/state/index.js';
import type { MessageContentMode } from '../../adapters/discord/config.js';
import type { DiscordShards } from '../../adapters/discord/shards.js';
import { startRig, type Rig } from './helpers.js';
import { sharedConverters } from '../converters.js';

export interface AnswerScript {
  pieces: string[];
  cite?: Record<string, CiteEntry>;
  /** Awaited before piece `index` is handed to the service (timing, gates). */
  before?: (index: number) => Promise<void> | void;
  /** Called once the last piece was taken: the service closes the stream next. */
  onEnd?: () => void;
}

export interface EngineRig extends Rig {
  service: LocalService;
  client: ServiceClient;
  chatbotUuid: string;
  /** The answer the next question gets (per question, in order; the last one repeats). */
  answers: AnswerScript[];
  /** Called before piece n (n ≥ 1) is written; resolve to let it through. Default: at once. */
  pacer: (pieceIndex: number) => Promise<void>;
  /** A script chosen by the question (concurrent answers); falls back to `answers`. */
  answerFor?: (query: string) => AnswerScript | undefined;
}

export const API_KEY = 'discord-test-key';

export async function startEngineRig(
  options: {
    minUpdateMs?: number;
    maxUploadBytes?: number;
    rateLimit?: [number, number];
    admins?: string[];
    /** The state store (default memory://); replicas pass stores on one Redis. */
    state?: State;
    /** Pace REST calls by the state store's rate budget, as `chatbridge start` does. */
    sharedBudget?: boolean;
    messageContent?: MessageContentMode;
    /** The gateway shards the adapter holds (DISCORD_SHARDS); default one, 0 of 1. */
    shards?: DiscordShards;
    /** Told of REST calls and feedback votes (metrics). */
    observer?: BridgeObserver;
    /** Fake time once connected (helpers.ts startRig): `rig.settle` moves it on. */
    fakeTime?: boolean;
    /** The proxy the adapter's REST calls and downloads go through. */
    proxy?: ProxySettings;
    logger?: Logger;
  } = {},
): Promise<EngineRig> {
  const answers: AnswerScript[] = [];
  const holder: Pick<EngineRig, 'pacer' | 'answerFor'> = { pacer: async () => {} };
  const base = await createDefaultKnowledge({
    refusePrivateUrls: false,
    pool: sharedConverters,
    maxFetchBytes: 1_000_000,
    fetchTimeoutMs: 1000,
  });
  const knowledge: KnowledgePort = {
    ...base,
    answer(request) {
      const script = holder.answerFor?.(request.query) ??
        (answers.length > 1 ? answers.shift() : answers[0]) ?? { pieces: ['(no script)'] };
      return {
        pieces: (async function* () {
          for (const [index, piece] of script.pieces.entries()) {
            await script.before?.(index);
            yield piece;
          }
          script.onEnd?.();
        })(),
        citations: () => script.cite ?? {},
      };
    },
  };
  const service = await startLocalService({
    apiKeys: [API_KEY],
    knowledge,
    pacer: (index) => holder.pacer(index),
  });
  const client = createServiceClient({ baseUrl: service.url, apiKey: API_KEY });
  const state = options.state ?? (await openState('memory://'));
  const conversation = createConversation({ client, state });
  const rig = await startRig(conversation, {
    client,
    state,
    minUpdateMs: options.minUpdateMs,
    maxUploadBytes: options.maxUploadBytes,
    admins: options.admins,
    ...(options.sharedBudget ? { rateBudget: state.rateBudget } : {}),
    messageContent: options.messageContent,
    ...(options.shards ? { shards: options.shards } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.fakeTime ? { fakeTime: true } : {}),
    ...(options.proxy ? { proxy: options.proxy } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  // The service's own rate limit would refuse long runs (benchmarks): the loosest allowed.
  const chatbot = await rig.settle(
    client.createChatbot({
      name: 'Helper',
      show_citations: true,
      rate_limit: options.rateLimit ?? [100, 1],
    }),
  );
  await state.bindings.set(`discord:${rig.fake.guildId}`, chatbot.uuid);
  await state.bindings.set(`discord:@dm`, chatbot.uuid);
  return {
    ...rig,
    service,
    client,
    chatbotUuid: chatbot.uuid,
    answers,
    get pacer() {
      return holder.pacer;
    },
    set pacer(fn) {
      holder.pacer = fn;
    },
    get answerFor() {
      return holder.answerFor;
    },
    set answerFor(fn) {
      holder.answerFor = fn;
    },
    async close() {
      await rig.close();
      await client.close();
      await service.close();
    },
  };
}

/** A gate: `wait()` promises resolve once `open()` was called. */
export function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open };
}
