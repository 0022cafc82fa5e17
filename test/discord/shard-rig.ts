// Several bot "processes" on one fake Discord, as a sharded deployment runs them: each its own
// engine and discord.js client holding its own shards, all sharing one state store and one
// local service. The service's answer names the question and how many earlier turns its
// session had, so a conversation continued by another process shows in the text.
import type { DiscordAdapter } from '../../adapters/discord/adapter.js';
import type { DiscordShards } from '../../adapters/discord/shards.js';
import { createConversation } from '../../src/bridge/index.js';
import type { Conversation } from '../../src/bridge/types.js';
import { startLocalService } from '../../src/local-service/index.js';
import { createDefaultKnowledge } from '../../src/local-service/knowledge-default.js';
import { createServiceClient } from '../../src/service/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import { openState, type State } from '../../src/state/index.js';
import { FakeDiscord } from './fake/discord.js';
import type { FakeMessage } from './fake/payloads.js';
import { startRig } from './helpers.js';
import { sharedConverters } from '../converters.js';

export const SHARD_KEY = 'shard-test-key';

export interface BotProcess {
  adapter: DiscordAdapter;
  /** Ids of the messages this process's engine was handed. */
  handled: string[];
  stop(): Promise<void>;
}

export interface ShardRig {
  fake: FakeDiscord;
  state: State;
  client: ServiceClient;
  chatbotUuid: string;
  /** Starts a process holding these shards; resolves once it is connected. */
  process(shards: DiscordShards | undefined): Promise<BotProcess>;
  /** Resolves with the bot's message in this channel once its text satisfies the predicate. */
  botSays(channelId: string, predicate: (content: string) => boolean): Promise<FakeMessage>;
  close(): Promise<void>;
}

export async function startShardRig(): Promise<ShardRig> {
  const fake = await new FakeDiscord().start();
  // Read at each call, not taken once: a test moving on fake time moves the shared budget too.
  const state = await openState('memory://', { now: () => Date.now() });
  const base = await createDefaultKnowledge({
    refusePrivateUrls: false,
    pool: sharedConverters,
    maxFetchBytes: 1_000_000,
    fetchTimeoutMs: 1000,
  });
  const service = await startLocalService({
    apiKeys: [SHARD_KEY],
    knowledge: {
      ...base,
      answer: (request) => ({
        pieces: (async function* () {
          yield `Answer to "${request.query}" `;
          yield `after ${request.history.length} earlier turn(s).`;
        })(),
        citations: () => ({}),
      }),
    },
  });
  const client = createServiceClient({ baseUrl: service.url, apiKey: SHARD_KEY });
  const chatbot = await client.createChatbot({ name: 'Sharded', rate_limit: [100, 1] });
  const running = new Set<BotProcess>();

  async function process(shards: DiscordShards | undefined): Promise<BotProcess> {
    const engine = createConversation({ client, state, defaultChatbot: chatbot.uuid });
    const handled: string[] = [];
    const conversation: Conversation = {
      handle: (message, target) => {
        handled.push(message.messageId);
        return engine.handle(message, target);
      },
      hasSession: (thread) => engine.hasSession(thread),
      reset: (thread) => engine.reset(thread),
    };
    // Only the adapter is this process's own: the fake and the state are shared.
    const { adapter } = await startRig(conversation, {
      client,
      state,
      fake,
      rateBudget: state.rateBudget,
      defaultChatbot: chatbot.uuid,
      ...(shards ? { shards } : {}),
    });
    let stopped: Promise<void> | undefined;
    const bot: BotProcess = {
      adapter,
      handled,
      stop: () => {
        running.delete(bot);
        stopped ??= adapter.stop();
        return stopped;
      },
    };
    running.add(bot);
    return bot;
  }

  function botSays(channelId: string, predicate: (content: string) => boolean) {
    const matches = (m: FakeMessage) =>
      m.author.id === fake.bot.id && m.channel_id === channelId && predicate(m.content);
    const past = fake.botMessages(channelId).filter(matches);
    return Promise.race([
      fake.waitFor<FakeMessage>('message', matches, past),
      fake.waitFor<FakeMessage>('edit', matches, past),
    ]);
  }

  return {
    fake,
    state,
    client,
    chatbotUuid: chatbot.uuid,
    process,
    botSays,
    async close() {
      for (const bot of [...running]) await bot.stop();
      await fake.close();
      await client.close();
      await service.close();
      await state.close();
    },
  };
}
