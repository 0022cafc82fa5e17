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
import type { Logger } from 'pino';
import type { BridgeObserver } from '../../src/bridge/observer.js';
import type { ChatAdapter, Conversation } from '../../src/bridge/types.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { RateBudget, StateStore } from '../../src/state/types.js';
import { createDiscordClient, DISALLOWED_INTENTS_CLOSE } from './client.js';
import type { DiscordAdapterConfig } from './config.js';
import { DisallowedIntentsError, loginUntilReady } from './connect.js';
import { createInteractionHandler } from './interactions.js';
import { createMessageHandler } from './messages.js';
import { ChannelPace } from './pace.js';
import { heldShards } from './shard-status.js';

export interface DiscordAdapterDeps {
  conversation: Conversation;
  state: StateStore;
  client: ServiceClient;
  logger: Logger;
  /** The chatbot answering where nothing is bound; admin commands fall back to it too. */
  defaultChatbot?: string;
  now?: () => number;
  /** Base interval between two edits of one message (default 1000 ms). */
  minUpdateMs?: number;
  /** Longest wait in stop() for answers still streaming. Default 10 s. */
  drainMs?: number;
  /** Told of every REST call and its outcome (metrics). */
  observer?: BridgeObserver;
  /**
   * Paces REST calls (50 a second per bot, 5 per 5 s per channel for posts, edits and typing)
   * before they go out; the state store's in `chatbridge start`, shared by replicas on Redis.
   * Without it, discord.js paces this process alone.
   */
  rateBudget?: RateBudget;
}

export interface DiscordAdapter extends ChatAdapter {
  /** The discord.js client connected now (for the CLI and tests). */
  readonly discord: Client;
  /** Whether the connection asked for (and got) the Message Content intent. */
  readonly messageContent: boolean;
}

const EDIT_ROUTE = '/channels/:id/messages/:id';

export function createDiscordAdapter(
  config: DiscordAdapterConfig,
  deps: DiscordAdapterDeps,
): DiscordAdapter {
  const logger = deps.logger.child({ adapter: 'discord' });
  const pace = new ChannelPace({ baseMs: deps.minUpdateMs, now: deps.now });
  const inFlight = new Set<Promise<void>>();
  let withContent = config.messageContent !== 'off';
  const clientOptions = (messageContent: boolean) => ({
    messageContent,
    ...(deps.rateBudget ? { rateBudget: deps.rateBudget } : {}),
  });
  let discord = createDiscordClient(config, clientOptions(withContent));
  /** Clients replaced at run time: destroyed in stop(), after the answers they carry. */
  const retired: Client[] = [];
  let started = false;
  let stopping = false;

  const onMessage = createMessageHandler({
    conversation: deps.conversation,
    state: deps.state,
    pace,
    logger,
    botId: () => discord.user?.id,
    receivesContent: () => withContent,
  });
  const onInteraction = createInteractionHandler({
    client: deps.client,
    state: deps.state,
    defaultChatbot: deps.defaultChatbot,
    maxUploadBytes: config.maxUploadBytes,
    admins: config.admins,
    logger,
    observer: deps.observer,
  });

  /** Runs an event's work without letting a failure escape into discord.js. */
  function track(what: string, work: () => Promise<void>): void {
    const job = work()
      .catch((error: unknown) => logger.error({ err: error }, `discord: ${what} failed`))
      .finally(() => inFlight.delete(job));
    inFlight.add(job);
  }

  function wire(client: Client): void {
    // While stopping, new messages are left alone: a replica still running answers them (each
    // replica's gateway sees every message; the dedup claim decides who answers).
    client.on(Events.MessageCreate, (message: Message) => {
      if (!stopping) track('message', () => onMessage(message));
    });
    client.on(Events.ThreadCreate, (thread: AnyThreadChannel, newlyCreated: boolean) => {
      // A new forum post: its starter message may arrive before or after this; dedup answers once.
      const parentType = thread.parent?.type;
      if (!newlyCreated || thread.ownerId === client.user?.id) return;
      if (parentType !== ChannelType.GuildForum && parentType !== ChannelType.GuildMedia) return;
      if (stopping) return;
      track('forum post', async () => {
        const starter = await thread.fetchStarterMessage().catch(() => null);
        if (starter) await onMessage(starter);
      });
    });
    client.on(Events.InteractionCreate, (interaction: Interaction) =>
      track('interaction', () => onInteraction(interaction)),
    );
    client.rest.on(RESTEvents.Response, (request, response) => {
      const outcome = response.status === 429 ? 'rate_limited' : response.ok ? 'ok' : 'error';
      // discord.js's bucket route has its ids as :id already; any other number goes too.
      const route = request.route.replace(/\d{5,}/g, ':id');
      deps.observer?.platformCall?.('discord', `${request.method} ${route}`, outcome);
    });
    // Discord told discord.js a channel's edit bucket is empty: slow that channel's edits.
    client.rest.on(RESTEvents.RateLimited, (info: RateLimitData) => {
      if (info.route === EDIT_ROUTE && !info.global)
        pace.limited(info.majorParameter, info.retryAfter);
    });
    client.on(Events.Error, (error) => logger.error({ err: error }, 'discord: client error'));
    client.on(Events.Warn, (message) => logger.warn(`discord: ${message}`));
    // Discord refuses the intent on a later reconnect (switched off while running): go on without.
    client.on(Events.ShardDisconnect, (event) => {
      if (event.code !== DISALLOWED_INTENTS_CLOSE || client !== discord || !started) return;
      retired.push(client);
      track('reconnect', connectWithoutContent);
    });
  }

  function warnNoContent(): void {
    logger.warn(
      'discord: the Message Content intent is not enabled for this bot (gateway close 4014); ' +
        'connecting without it. Mentions, DMs and /chatbridge keep working; follow-ups in a ' +
        'thread without a mention cannot be read. Enable "Message Content Intent" in the ' +
        'developer portal (Bot tab), or set DISCORD_MESSAGE_CONTENT=off to silence this.',
    );
  }

  /** Replaces the client by one that does not ask for Message Content; fails in `on` mode. */
  async function connectWithoutContent(): Promise<void> {
    if (config.messageContent !== 'auto' || !withContent) throw new DisallowedIntentsError();
    warnNoContent();
    withContent = false;
    discord = createDiscordClient(config, clientOptions(false));
    wire(discord);
    if ((await loginUntilReady(discord, config.token)) !== 'ready')
      throw new DisallowedIntentsError();
    logger.info({ user: discord.user?.tag }, 'discord: connected without Message Content');
  }

  wire(discord);

  return {
    name: 'discord',
    get discord() {
      return discord;
    },
    get messageContent() {
      return withContent;
    },
    async start() {
      const first = discord;
      if ((await loginUntilReady(first, config.token)) === 'disallowed-intents') {
        await first.destroy();
        await connectWithoutContent();
      } else {
        logger.info(
          { user: discord.user?.tag, messageContent: withContent, shards: discord.options.shards },
          'discord: connected',
        );
      }
      started = true;
    },
    notReady() {
      if (stopping) return 'stopping';
      if (!started) return 'not connected yet';
      if (!discord.isReady()) return 'gateway not connected';
      const down = heldShards(discord).filter((shard) => shard.notReady !== undefined);
      return down.length > 0
        ? `${down.map((shard) => shard.name).join(', ')} reconnecting`
        : undefined;
    },
    connections() {
      return stopping ? [] : heldShards(discord);
    },
    async stop() {
      stopping = true;
      // Let answers in progress reach their final state before the connection goes.
      const drained = Promise.allSettled([...inFlight]);
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise((resolve) => {
        timer = setTimeout(resolve, deps.drainMs ?? 10_000);
      });
      await Promise.race([drained, limit]);
      clearTimeout(timer);
      for (const client of retired.splice(0)) await client.destroy();
      await discord.destroy();
    },
  };
}
