// A fake Discord on loopback for the real discord.js client: the REST routes chatbridge uses,
// a CDN for attachments, and a gateway (see gateway.ts). Everything the bot does is recorded,
// and tests wait on its events rather than on the clock.
import { assertDiscordConformance } from '../../conformance/discord/check.js';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { peerOf, type Peer } from '../../peers.js';
import type { AddressInfo } from 'node:net';
import { FakeGateway, shardOf } from './gateway.js';
import {
  ChannelKind,
  channelPayload,
  guildPayload,
  messagePayload,
  snowflake,
  snowflakeOnShard,
  user,
  type FakeChannel,
  type FakeMessage,
  type FakeUser,
} from './payloads.js';
import { interactionRoutes, type InteractionRecord } from './interactions.js';
import type { DiscordLimits } from './limits.js';
import {
  createMessage,
  editMessage,
  listMessages,
  startThread,
  tooManyRequests,
} from './messages.js';

export { tooManyRequests };

export interface FakeRequest {
  method: string;
  path: string;
  /** The channel a /channels/:id route is about. */
  channelId?: string;
  body: unknown;
  at: number;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** Bytes sent as they are (the CDN). */
  raw?: Uint8Array;
  headers?: Record<string, string>;
}

/** Returns a retry-after in ms to answer this request with a 429, or undefined to serve it. */
export type RateLimiter = (request: FakeRequest) => number | undefined;
export type ThreadFailure = 'rate-limit' | 'forbidden' | 'exists' | undefined;

type Route = (
  request: FakeRequest,
  params: string[],
  req: IncomingMessage,
) => Reply | Promise<Reply>;

export const TOKEN = 'fake-bot-token';
/** GatewayIntentBits.MessageContent. */
export const MESSAGE_CONTENT_INTENT = 1 << 15;

export class FakeDiscord extends EventEmitter {
  readonly bot: FakeUser = user(snowflake(), 'chatbridge', true);
  readonly applicationId = this.bot.id;
  readonly guildId = snowflake();
  readonly textChannel: FakeChannel = {
    id: snowflake(),
    type: ChannelKind.Text,
    guild_id: this.guildId,
    name: 'general',
  };
  readonly forum: FakeChannel = {
    id: snowflake(),
    type: ChannelKind.Forum,
    guild_id: this.guildId,
    name: 'help-forum',
  };
  readonly channels = new Map<string, FakeChannel>();
  /** Every server the bot is in: the main one first, then those of addGuild(). */
  readonly guildIds: string[] = [this.guildId];
  /** The shard count GET /gateway/bot recommends (what DISCORD_SHARDS=auto connects with). */
  recommendedShards = 1;
  readonly messages = new Map<string, FakeMessage>();
  readonly requests: FakeRequest[] = [];
  /** Every request and WebSocket upgrade served, with the client's port (proxy tests). */
  readonly peers: Peer[] = [];
  readonly files = new Map<string, Uint8Array>();
  readonly commands = new Map<string, unknown[]>();
  /** Slash-command interactions by id and by token. */
  readonly interactions = new Map<string, InteractionRecord>();
  readonly gateway: FakeGateway;
  rateLimiter: RateLimiter | undefined;
  /** Discord's own limits (50/s global, 5 per 5 s per channel for posts, edits, typing). */
  limits: DiscordLimits | undefined;
  threadFailure: ThreadFailure;
  /** Channels where the bot lacks Send Messages: posting there answers 403. */
  readonly refusePosts = new Set<string>();
  /** Intents of the last identify. */
  intents = 0;
  /** Intents not enabled in the "developer portal": an identify asking for them gets 4014. */
  disallowedIntents = 0;
  private server: Server | undefined;
  private readonly routes: [string, RegExp, Route][] = [];
  port = 0;

  constructor() {
    super();
    this.setMaxListeners(0);
    for (const channel of [this.textChannel, this.forum]) this.channels.set(channel.id, channel);
    this.gateway = new FakeGateway({
      ready: (sessionId, [id, count]) => ({
        v: 10,
        user: this.bot,
        guilds: this.guildIds
          .filter((guild) => shardOf(guild, count) === id)
          .map((guild) => ({ id: guild, unavailable: true })),
        session_id: sessionId,
        resume_gateway_url: this.gatewayUrl,
        application: { id: this.applicationId, flags: 0 },
        private_channels: [],
        shard: [id, count],
      }),
      guilds: () =>
        this.guildIds.map(
          (guild) =>
            guildPayload(
              guild,
              this.bot,
              [...this.channels.values()].filter((c) => c.guild_id === guild),
            ) as { id: string },
        ),
      onIdentify: (intents) => {
        this.intents = intents;
        this.emit('identify', intents);
      },
      refuseIdentify: (intents) =>
        (intents & this.disallowedIntents) !== 0
          ? { code: 4014, reason: 'Disallowed intent(s).' }
          : undefined,
    });
    this.defineRoutes();
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.port}/gateway`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.peers.push(peerOf(req, 'http'));
      void this.handle(req, res);
    });
    this.server.on('upgrade', (req, socket, head) => {
      this.peers.push(peerOf(req, 'upgrade'));
      if (req.url?.startsWith('/gateway')) this.gateway.handleUpgrade(req, socket, head);
      else socket.destroy();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.gateway.close();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
    // Every API request the bridge sent, checked against Discord's OpenAPI description.
    assertDiscordConformance(this.requests.filter((r) => !r.path.startsWith('/cdn/')));
  }

  route(method: string, pattern: string, handler: Route): void {
    const regex = new RegExp(`^${pattern.replace(/:\w+/g, '([^/]+)')}$`);
    this.routes.push([method, regex, handler]);
  }

  // ---- things a user does ----

  /** A user posts in a channel (or thread, or DM); the gateway delivers MESSAGE_CREATE. */
  userMessage(
    channelId: string,
    author: FakeUser,
    content: string,
    options: {
      mentions?: FakeUser[];
      id?: string;
      attachments?: FakeMessage['attachments'];
      /** A Discord reply to this message (of the same channel). */
      replyTo?: string;
    } = {},
  ): FakeMessage {
    const channel = this.channels.get(channelId);
    const message = this.store({
      id: options.id ?? snowflake(),
      channel_id: channelId,
      guild_id: channel?.guild_id,
      author,
      content,
      mentions: options.mentions ?? [],
      attachments: options.attachments ?? [],
      allowedMentions: [],
      history: [content],
      flags: 0,
      ...(options.replyTo
        ? { message_reference: { message_id: options.replyTo, channel_id: channelId } }
        : {}),
    });
    this.gateway.dispatch('MESSAGE_CREATE', this.delivered(message));
    return message;
  }

  /**
   * MESSAGE_CREATE as this connection may see it: without the Message Content intent, Discord
   * withholds content, attachments and embeds of server messages that do not mention the bot.
   */
  delivered(message: FakeMessage): Record<string, unknown> {
    const channel = this.channels.get(message.channel_id);
    const payload = messagePayload(message, channel?.type ?? ChannelKind.DM);
    const withheld =
      (this.intents & MESSAGE_CONTENT_INTENT) === 0 &&
      message.guild_id !== undefined &&
      message.author.id !== this.bot.id &&
      !message.mentions.some((u) => u.id === this.bot.id);
    return withheld ? { ...payload, content: '', attachments: [], embeds: [] } : payload;
  }

  /** Delivers a message's MESSAGE_CREATE again (a replica or a restarted process sees it twice). */
  redeliver(message: FakeMessage): void {
    this.gateway.dispatch('MESSAGE_CREATE', this.delivered(message));
  }

  /**
   * The bot joins another server, with one text channel; its id puts it on shard `shard` of
   * `count` (Discord: (guild_id >> 22) % count), so tests choose which process gets its events.
   * A connection already holding that shard gets its GUILD_CREATE now.
   */
  addGuild(shard = 0, count = 1): { guildId: string; textChannel: FakeChannel } {
    const guildId = snowflakeOnShard(shard, count);
    this.guildIds.push(guildId);
    const textChannel: FakeChannel = {
      id: snowflake(),
      type: ChannelKind.Text,
      guild_id: guildId,
      name: `general-${this.guildIds.length}`,
    };
    this.channels.set(textChannel.id, textChannel);
    // As when a bot joins a server: the connection holding its shard is told at once.
    this.gateway.dispatch('GUILD_CREATE', guildPayload(guildId, this.bot, [textChannel]));
    return { guildId, textChannel };
  }

  /** A user opens a DM with the bot: a channel the client has never seen. */
  dmChannel(recipient: FakeUser): FakeChannel {
    const channel: FakeChannel = { id: snowflake(), type: ChannelKind.DM, recipients: [recipient] };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A user creates a forum post: THREAD_CREATE, then the starter message (same id). */
  forumPost(
    author: FakeUser,
    title: string,
    content: string,
    mentions: FakeUser[] = [],
  ): FakeChannel {
    const thread: FakeChannel = {
      id: snowflake(),
      type: ChannelKind.PublicThread,
      guild_id: this.guildId,
      parent_id: this.forum.id,
      name: title,
      owner_id: author.id,
    };
    this.channels.set(thread.id, thread);
    this.gateway.dispatch('THREAD_CREATE', { ...channelPayload(thread), newly_created: true });
    this.userMessage(thread.id, author, content, { id: thread.id, mentions });
    return thread;
  }

  /**
   * A user starts a public thread in a text channel: on one of its messages (the thread takes
   * that message's id, as on Discord), or on nothing.
   */
  userThread(author: FakeUser, name: string, onMessage?: string): FakeChannel {
    const thread: FakeChannel = {
      id: onMessage ?? snowflake(),
      type: ChannelKind.PublicThread,
      guild_id: this.guildId,
      parent_id: this.textChannel.id,
      name,
      owner_id: author.id,
    };
    this.channels.set(thread.id, thread);
    this.gateway.dispatch('THREAD_CREATE', { ...channelPayload(thread), newly_created: true });
    return thread;
  }

  /** Serves bytes on the fake CDN; returns the attachment object a message would carry. */
  attachment(filename: string, bytes: Uint8Array, contentType = 'text/plain') {
    const id = snowflake();
    this.files.set(`${id}/${filename}`, bytes);
    const url = `http://127.0.0.1:${this.port}/cdn/attachments/${id}/${filename}?ex=1&hm=signed`;
    return { id, filename, size: bytes.length, url, proxy_url: url, content_type: contentType };
  }

  // ---- what the bot did ----

  botMessages(channelId?: string): FakeMessage[] {
    return [...this.messages.values()].filter(
      (m) => m.author.id === this.bot.id && (channelId === undefined || m.channel_id === channelId),
    );
  }

  /** Resolves with the first recorded event of this name matching the predicate (past or future). */
  waitFor<T>(event: string, predicate: (value: T) => boolean, past: T[] = []): Promise<T> {
    const found = past.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => {
      const listener = (value: T) => {
        if (!predicate(value)) return;
        this.off(event, listener);
        resolve(value);
      };
      this.on(event, listener);
    });
  }

  store(message: FakeMessage): FakeMessage {
    this.messages.set(message.id, message);
    return message;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = raw.toString('utf8');
    let body: unknown = text;
    const type = req.headers['content-type'] ?? '';
    if (type.includes('application/json') && text !== '') body = JSON.parse(text);
    // Files (an interaction reply's attachments): payload_json plus the files, kept as `files`.
    if (type.includes('multipart/form-data')) body = await multipartBody(raw, type);
    const path = decodeURIComponent(url.pathname).replace(/^\/api(\/v\d+)?/, '');
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path,
      channelId: /^\/channels\/(\d+)/.exec(path)?.[1],
      body,
      at: performance.now(),
    };
    this.requests.push(request);
    this.emit('request', request);
    const reply = await this.serve(request, url, req);
    const typed =
      reply.body === undefined && reply.raw === undefined
        ? {}
        : { 'content-type': 'application/json' };
    res.writeHead(reply.status, { ...typed, ...reply.headers });
    res.end(reply.raw ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body)));
  }

  private async serve(request: FakeRequest, url: URL, req: IncomingMessage): Promise<Reply> {
    if (url.pathname.startsWith('/cdn/attachments/')) {
      const bytes = this.files.get(url.pathname.slice('/cdn/attachments/'.length));
      if (!bytes || url.searchParams.get('hm') !== 'signed')
        return { status: 404, body: 'expired' };
      return { status: 200, raw: bytes, headers: { 'content-type': 'application/octet-stream' } };
    }
    const openRoute = /^\/(interactions|webhooks)\//.test(request.path);
    if (!openRoute && req.headers.authorization !== `Bot ${TOKEN}`) {
      return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
    }
    const retryAfterMs = this.rateLimiter?.(request);
    if (retryAfterMs !== undefined) return tooManyRequests(request, retryAfterMs);
    const verdict = openRoute ? undefined : this.limits?.admit(request);
    if (verdict?.retryAfterMs !== undefined) {
      const refused = tooManyRequests(request, verdict.retryAfterMs);
      const body = refused.body as Record<string, unknown>;
      return {
        ...refused,
        headers: { ...refused.headers, ...verdict.headers },
        body: { ...body, global: verdict.global },
      };
    }
    for (const [method, regex, handler] of this.routes) {
      const match = regex.exec(request.path);
      if (method === request.method && match) {
        const reply = await handler(request, match.slice(1), req);
        return verdict ? { ...reply, headers: { ...reply.headers, ...verdict.headers } } : reply;
      }
    }
    return {
      status: 404,
      body: { message: `fake: no route ${request.method} ${request.path}`, code: 0 },
    };
  }

  private defineRoutes(): void {
    this.route('GET', '/gateway/bot', () => ({
      status: 200,
      body: {
        url: this.gatewayUrl,
        shards: this.recommendedShards,
        // 16 identifies at once (as for large bots): a process's shards connect without
        // discord.js's 5 s wait between identifies of one bucket.
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 16 },
      },
    }));
    this.route('GET', '/users/@me', () => ({ status: 200, body: this.bot }));
    this.route('GET', '/applications/@me', () => ({
      status: 200,
      body: { id: this.applicationId, name: 'chatbridge', flags: 0, bot: this.bot },
    }));
    // A process that does not hold a server's shard reads it and its channels here (takeover).
    this.route('GET', '/channels/:cid', (_r, [cid]) => {
      const channel = this.channels.get(cid!);
      if (!channel) return { status: 404, body: { message: 'Unknown Channel', code: 10003 } };
      return { status: 200, body: channelPayload(channel) };
    });
    this.route('GET', '/guilds/:gid', (_r, [gid]) => {
      if (!this.guildIds.includes(gid!))
        return { status: 404, body: { message: 'Unknown Guild', code: 10004 } };
      const {
        channels: _channels,
        threads: _threads,
        ...guild
      } = guildPayload(gid!, this.bot, []) as Record<string, unknown>;
      return { status: 200, body: guild };
    });
    this.route('POST', '/channels/:cid/typing', (r) => {
      this.emit('typing', r.channelId);
      return { status: 204 };
    });
    this.route('POST', '/channels/:cid/messages', (r, [cid]) => createMessage(this, cid!, r.body));
    this.route('GET', '/channels/:cid/messages', (_r, [cid], req) =>
      listMessages(this, cid!, new URL(req.url ?? '/', 'http://fake').searchParams),
    );
    this.route('PATCH', '/channels/:cid/messages/:mid', (r, [, mid]) =>
      editMessage(this, mid!, r.body),
    );
    this.route('GET', '/channels/:cid/messages/:mid', (_r, [, mid]) => {
      const message = this.messages.get(mid!);
      if (!message) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
      return { status: 200, body: this.delivered(message) };
    });
    this.route('DELETE', '/channels/:cid/messages/:mid', (_r, [, mid]) => {
      const message = this.messages.get(mid!);
      if (!message) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
      this.messages.delete(mid!);
      this.emit('delete', message);
      return { status: 204 };
    });
    this.route('POST', '/channels/:cid/messages/:mid/threads', (r, [cid, mid]) =>
      startThread(this, cid!, mid!, r.body as { name: string }),
    );
    for (const [method, pattern, handler] of interactionRoutes(this))
      this.route(method, pattern, handler);
  }
}

/** A multipart body as Discord reads it: the JSON payload, with the attached files beside it. */
async function multipartBody(
  raw: Buffer,
  type: string,
): Promise<Record<string, unknown> & { files: { name: string; bytes: Buffer }[] }> {
  const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
  const payload = form.get('payload_json');
  const files: { name: string; bytes: Buffer }[] = [];
  for (const [key, value] of form.entries()) {
    if (key.startsWith('files[') && typeof value !== 'string') {
      files.push({ name: value.name, bytes: Buffer.from(await value.arrayBuffer()) });
    }
  }
  return { ...(typeof payload === 'string' ? (JSON.parse(payload) as object) : {}), files };
}
