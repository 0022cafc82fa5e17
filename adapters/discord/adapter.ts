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
import { Intake } from '../../src/bridge/intake.js';
import type { BridgeObserver } from '../../src/bridge/observer.js';
import type { ChatAdapter, Conversation } from '../../src/bridge/types.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { RateBudget, StateStore } from '../../src/state/types.js';
import { createDiscordClient, DISALLOWED_INTENTS_CLOSE } from './client.js';
import type { DiscordAdapterConfig } from './config.js';
import { DisallowedIntentsError, loginUntilReady } from './connect.js';
import { createInteractionHandler } from './interactions.js';
import { createMessageHandler, DEDUP_TTL_MS, type MessageHandler } from './messages.js';
import type { KeptDiscordEvent } from './takeover.js';
import { closeOutbound, proxiedOutbound, type Outbound } from '../shared/outbound.js';
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
  /** Waits between tries of taking a message in while the store is down (tests shorten them). */
  takeRetryMs?: readonly number[];
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
  return new DiscordSurface(config, deps);
}

class DiscordSurface implements DiscordAdapter {
  readonly name = 'discord';
  private readonly logger: Logger;
  private readonly pace: ChannelPace;
  private readonly inFlight = new Set<Promise<void>>();
  private withContent: boolean;
  private client: Client;
  /** Clients replaced at run time: destroyed in stop(), after the answers they carry. */
  private readonly retired: Client[] = [];
  private started = false;
  private stopping = false;
  private readonly messages: MessageHandler;
  /** Messages to answer, kept until their answer is final (taken over if this process dies). */
  private readonly intake: Intake<KeptDiscordEvent>;
  private readonly onInteraction: (interaction: Interaction) => Promise<void>;
  /** REST calls and attachment downloads through the proxy variables, when set. */
  private readonly outbound: Outbound | undefined;

  constructor(
    private readonly config: DiscordAdapterConfig,
    private readonly deps: DiscordAdapterDeps,
  ) {
    const logger = (this.logger = deps.logger.child({ adapter: 'discord' }));
    this.pace = new ChannelPace({ baseMs: deps.minUpdateMs, now: deps.now });
    this.withContent = config.messageContent !== 'off';
    this.outbound = proxiedOutbound(config.proxy);
    this.client = createDiscordClient(config, this.clientOptions(this.withContent));
    this.intake = new Intake<KeptDiscordEvent>({
      platform: 'discord',
      state: deps.state,
      log: logger,
      dedupTtlMs: DEDUP_TTL_MS,
    });
    this.messages = createMessageHandler({
      conversation: deps.conversation,
      state: deps.state,
      pace: this.pace,
      logger,
      botId: () => this.client.user?.id,
      client: () => this.client,
      receivesContent: () => this.withContent,
      intake: this.intake,
      ...(deps.takeRetryMs ? { takeRetryMs: deps.takeRetryMs } : {}),
    });
    this.onInteraction = createInteractionHandler({
      client: deps.client,
      state: deps.state,
      defaultChatbot: deps.defaultChatbot,
      maxUploadBytes: config.maxUploadBytes,
      admins: config.admins,
      logger,
      observer: deps.observer,
      ...(this.outbound ? { fetch: this.outbound.fetch } : {}),
    });
    this.wire(this.client);
  }

  get discord(): Client {
    return this.client;
  }

  get messageContent(): boolean {
    return this.withContent;
  }

  private clientOptions(messageContent: boolean) {
    return {
      messageContent,
      ...(this.deps.rateBudget ? { rateBudget: this.deps.rateBudget } : {}),
      ...(this.outbound ? { dispatcher: this.outbound.dispatcher } : {}),
    };
  }

  /** Runs an event's work without letting a failure escape into discord.js. */
  private track(what: string, work: () => Promise<void>): void {
    const job = work()
      .catch((error: unknown) => this.logger.error({ err: error }, `discord: ${what} failed`))
      .finally(() => this.inFlight.delete(job));
    this.inFlight.add(job);
  }

  private wire(client: Client): void {
    // While stopping, new messages are left alone: a replica still running answers them (each
    // replica's gateway sees every message; the dedup claim decides who answers).
    client.on(Events.MessageCreate, (message: Message) => {
      if (!this.stopping) this.track('message', () => this.messages.onMessage(message));
    });
    client.on(Events.ThreadCreate, (thread: AnyThreadChannel, newlyCreated: boolean) => {
      // A new forum post: its starter message may arrive before or after this; dedup answers once.
      const parentType = thread.parent?.type;
      if (!newlyCreated || thread.ownerId === client.user?.id) return;
      if (parentType !== ChannelType.GuildForum && parentType !== ChannelType.GuildMedia) return;
      if (this.stopping) return;
      this.track('forum post', async () => {
        const starter = await thread.fetchStarterMessage().catch(() => null);
        if (starter) await this.messages.onMessage(starter);
      });
    });
    client.on(Events.InteractionCreate, (interaction: Interaction) =>
      this.track('interaction', () => this.onInteraction(interaction)),
    );
    this.wireRest(client);
    client.on(Events.Error, (error) => this.logger.error({ err: error }, 'discord: client error'));
    client.on(Events.Warn, (message) => this.logger.warn(`discord: ${message}`));
    // Discord refuses the intent on a later reconnect (switched off while running): go on without.
    client.on(Events.ShardDisconnect, (event) => {
      if (event.code !== DISALLOWED_INTENTS_CLOSE || client !== this.client || !this.started)
        return;
      this.retired.push(client);
      this.track('reconnect', () => this.connectWithoutContent());
    });
  }

  private wireRest(client: Client): void {
    client.rest.on(RESTEvents.Response, (request, response) => {
      const outcome = response.status === 429 ? 'rate_limited' : response.ok ? 'ok' : 'error';
      // discord.js's bucket route has its ids as :id already; any other number goes too.
      const route = request.route.replace(/\d{5,}/g, ':id');
      this.deps.observer?.platformCall?.('discord', `${request.method} ${route}`, outcome);
    });
    // Discord told discord.js a channel's edit bucket is empty: slow that channel's edits.
    client.rest.on(RESTEvents.RateLimited, (info: RateLimitData) => {
      if (info.route === EDIT_ROUTE && !info.global)
        this.pace.limited(info.majorParameter, info.retryAfter);
    });
  }

  private warnNoContent(): void {
    this.logger.warn(
      'discord: the Message Content intent is not enabled for this bot (gateway close 4014); ' +
        'connecting without it. Mentions, DMs and /chatbridge keep working; follow-ups in a ' +
        'thread without a mention cannot be read. Enable "Message Content Intent" in the ' +
        'developer portal (Bot tab), or set DISCORD_MESSAGE_CONTENT=off to silence this.',
    );
  }

  /** Replaces the client by one that does not ask for Message Content; fails in `on` mode. */
  private async connectWithoutContent(): Promise<void> {
    if (this.config.messageContent !== 'auto' || !this.withContent)
      throw new DisallowedIntentsError();
    this.warnNoContent();
    this.withContent = false;
    this.client = createDiscordClient(this.config, this.clientOptions(false));
    this.wire(this.client);
    if ((await loginUntilReady(this.client, this.config.token)) !== 'ready')
      throw new DisallowedIntentsError();
    this.logger.info({ user: this.client.user?.tag }, 'discord: connected without Message Content');
  }

  async start(): Promise<void> {
    if (this.outbound) {
      // discord.js opens its gateway WebSocket with the `ws` package and hands it no agent.
      this.logger.warn(
        'discord: REST calls and downloads go through the proxy variables; discord.js opens ' +
          'its gateway WebSocket directly, so this host must reach gateway.discord.gg ' +
          '(wss, port 443) without the proxy',
      );
    }
    const first = this.client;
    if ((await loginUntilReady(first, this.config.token)) === 'disallowed-intents') {
      await first.destroy();
      await this.connectWithoutContent();
    } else {
      const discord = this.client;
      this.logger.info(
        {
          user: discord.user?.tag,
          messageContent: this.withContent,
          shards: discord.options.shards,
        },
        'discord: connected',
      );
    }
    this.started = true;
    // Messages a dead process (another shard's, a replica) kept and never answered: here,
    // after their lease; REST reaches every server whichever shard saw the message.
    this.intake.start((kept, work) => {
      const resumed = this.messages.resume(kept, work);
      this.track('takeover', () => resumed);
      return resumed;
    });
  }

  notReady(): string | undefined {
    if (this.stopping) return 'stopping';
    if (!this.started) return 'not connected yet';
    if (!this.client.isReady()) return 'gateway not connected';
    const down = heldShards(this.client).filter((shard) => shard.notReady !== undefined);
    return down.length > 0
      ? `${down.map((shard) => shard.name).join(', ')} reconnecting`
      : undefined;
  }

  connections() {
    return this.stopping ? [] : heldShards(this.client);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // What this process still holds when it exits is taken over by another (or its next start).
    this.intake.stop();
    // Let answers in progress reach their final state before the connection goes.
    const drained = Promise.allSettled([...this.inFlight]);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise((resolve) => {
      timer = setTimeout(resolve, this.deps.drainMs ?? 10_000);
    });
    await Promise.race([drained, limit]);
    clearTimeout(timer);
    try {
      for (const client of this.retired.splice(0)) await client.destroy();
      await this.client.destroy();
    } finally {
      await closeOutbound(this.outbound);
    }
  }
}
