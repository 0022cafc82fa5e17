// The Discord surface as `chatbridge start` runs it: one discord.js client, messages routed to
// the conversation engine, `/chatbridge` interactions to the admin table.
import {
  ChannelType,
  Events,
  RESTEvents,
  type AnyThreadChannel,
  type Client,
  type Interaction,
  type Message,
  type RateLimitData,
} from 'discord.js';
import { once } from 'node:events';
import type { Logger } from 'pino';
import type { ChatAdapter, Conversation } from '../../src/bridge/types.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { StateStore } from '../../src/state/types.js';
import { createDiscordClient } from './client.js';
import type { DiscordAdapterConfig } from './config.js';
import { createInteractionHandler } from './interactions.js';
import { createMessageHandler } from './messages.js';
import { ChannelPace } from './pace.js';

export interface DiscordAdapterDeps {
  conversation: Conversation;
  state: StateStore;
  client: ServiceClient;
  logger: Logger;
  now?: () => number;
  /** Base interval between two edits of one message (default 1000 ms). */
  minUpdateMs?: number;
  /** Longest wait in stop() for answers still streaming. Default 10 s. */
  drainMs?: number;
}

export interface DiscordAdapter extends ChatAdapter {
  /** The discord.js client (for the CLI and tests). */
  readonly discord: Client;
}

const EDIT_ROUTE = '/channels/:id/messages/:id';

export function createDiscordAdapter(
  config: DiscordAdapterConfig,
  deps: DiscordAdapterDeps,
): DiscordAdapter {
  const logger = deps.logger.child({ adapter: 'discord' });
  const discord = createDiscordClient(config);
  const pace = new ChannelPace({ baseMs: deps.minUpdateMs, now: deps.now });
  const inFlight = new Set<Promise<void>>();

  const onMessage = createMessageHandler({
    conversation: deps.conversation,
    state: deps.state,
    pace,
    logger,
    botId: () => discord.user?.id,
  });
  const onInteraction = createInteractionHandler({
    client: deps.client,
    state: deps.state,
    maxUploadBytes: config.maxUploadBytes,
    logger,
  });

  /** Runs an event's work without letting a failure escape into discord.js. */
  function track(what: string, work: () => Promise<void>): void {
    const job = work()
      .catch((error: unknown) => logger.error({ err: error }, `discord: ${what} failed`))
      .finally(() => inFlight.delete(job));
    inFlight.add(job);
  }

  discord.on(Events.MessageCreate, (message: Message) =>
    track('message', () => onMessage(message)),
  );
  discord.on(Events.ThreadCreate, (thread: AnyThreadChannel, newlyCreated: boolean) => {
    // A new forum post: its starter message may arrive before or after this; dedup answers once.
    const parentType = thread.parent?.type;
    if (!newlyCreated || thread.ownerId === discord.user?.id) return;
    if (parentType !== ChannelType.GuildForum && parentType !== ChannelType.GuildMedia) return;
    track('forum post', async () => {
      const starter = await thread.fetchStarterMessage().catch(() => null);
      if (starter) await onMessage(starter);
    });
  });
  discord.on(Events.InteractionCreate, (interaction: Interaction) =>
    track('interaction', () => onInteraction(interaction)),
  );
  // Discord told discord.js a channel's edit bucket is empty: slow that channel's edits.
  discord.rest.on(RESTEvents.RateLimited, (info: RateLimitData) => {
    if (info.route === EDIT_ROUTE && !info.global)
      pace.limited(info.majorParameter, info.retryAfter);
  });
  discord.on(Events.Error, (error) => logger.error({ err: error }, 'discord: client error'));
  discord.on(Events.Warn, (message) => logger.warn(`discord: ${message}`));

  return {
    name: 'discord',
    discord,
    async start() {
      const ready = once(discord, Events.ClientReady);
      await discord.login(config.token);
      await ready;
      logger.info({ user: discord.user?.tag }, 'discord: connected');
    },
    async stop() {
      // Let answers in progress reach their final state before the connection goes.
      const drained = Promise.allSettled([...inFlight]);
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise((resolve) => {
        timer = setTimeout(resolve, deps.drainMs ?? 10_000);
      });
      await Promise.race([drained, limit]);
      clearTimeout(timer);
      await discord.destroy();
    },
  };
}
