// A fake Slack Web API on loopback for tests and benchmarks. It records every call, keeps a
// workspace (fake-state.ts), enforces tier limits per method per workspace (and per channel
// where Slack counts so; SLACK_TIERS is Slack's documented table) when asked, answers
// 429 with Retry-After on demand, serves file downloads, takes response_url posts, and speaks
// enough Socket Mode (apps.connections.open + a WebSocket: fake-socket.ts) to deliver events_api
// envelopes, hear their acks and redeliver those never acknowledged.
// OAuth (fake-oauth.ts): workspaces installable through oauth.v2.access, each with a bot
// token of its own that only reaches that workspace's channels.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { peerOf, type Peer } from '../peers.js';
import type { AddressInfo } from 'node:net';
import { FakeWorkspace, type Args, type FakeBehaviour, type Reply } from './fake-state.js';
import { FakeOAuth } from './fake-oauth.js';
import { FakeSocketMode } from './fake-socket.js';
import { assertSlackConformance } from '../conformance/slack/check.js';
import { CHANNEL_LIMITS, METHOD_LIMITS } from '../../adapters/slack/pacing.js';

/** Slack's documented tiers (adapters/slack/limits.ts cites each), as the fake enforces them. */
export const SLACK_TIERS: Pick<FakeSlackOptions, 'tierLimits' | 'channelLimits'> = {
  tierLimits: { ...METHOD_LIMITS },
  channelLimits: { ...CHANNEL_LIMITS },
};

/**
 * Calls of one method in one channel allowed in a tenth of a minute beyond the minute's rate
 * ("short bursts >1 allowed"): 60 a minute → at most 12 in any 10 s. Ten seconds, not one, so
 * that a compressed window (benchmarks) still outlasts loopback jitter.
 */
export const CHANNEL_BURST = 2;

// Fake tokens with the real prefixes, assembled so no token-shaped literal sits in the repo.
export const BOT_TOKEN = ['xoxb', 'test-bot-token-0000'].join('-');
export const APP_TOKEN = ['xapp', 'test-app-token-0000'].join('-');
export const TEAM = 'T0TEAM';
export const BOT_USER = 'UBOT';

export interface FakeCall {
  method: string;
  args: Args;
  at: number;
  status: number;
  reply?: Reply;
  authorization?: string;
  /** The workspace the call's token belongs to (TEAM for BOT_TOKEN; OAuth installs their own). */
  team?: string;
}

export interface FakeFile {
  body: Uint8Array | string;
  contentType: string;
}

export interface FakeSlackOptions {
  /** Calls per window per method (per workspace: one bot token, one workspace). */
  tierLimits?: Record<string, number>;
  /**
   * Calls per window per method and channel (chat.postMessage's "1 message per second to a
   * specific channel"), and in any sixth of the window a sixth of them plus CHANNEL_BURST.
   */
  channelLimits?: Record<string, number>;
  windowMs?: number;
  now?: () => number;
  behaviour?: Partial<FakeBehaviour>;
}

type Waiter = { test: (call: FakeCall) => boolean; resolve: (call: FakeCall) => void };

/** A held call: answered only once the test releases it. */
interface Hold {
  method: string;
  test: (args: Args) => boolean;
  reached: () => void;
  released: Promise<void>;
}

export type Failure = 'network' | 500;

export class FakeSlack {
  readonly calls: FakeCall[] = [];
  /** Every request and WebSocket upgrade served, with the client's port (proxy tests). */
  readonly peers: Peer[] = [];
  readonly workspace: FakeWorkspace;
  readonly files = new Map<string, FakeFile>();
  /** Every request to /files/…: the Authorization header it carried. */
  readonly fileRequests: { path: string; authorization?: string }[] = [];
  readonly responses: { path: string; body: Args }[] = [];
  /** Bytes POSTed to the upload URLs files.getUploadURLExternal handed out, by file id. */
  readonly uploads = new Map<string, Buffer>();
  private uploadSeq = 0;
  /** Workspaces installable through oauth.v2.access, and the tokens handed out. */
  readonly oauth = new FakeOAuth();
  tooManyRequests = 0;
  private readonly forced429 = new Map<string, { count: number; retryAfterSec: number }>();
  private readonly failures = new Map<string, { count: number; how: Failure }>();
  private readonly holds: Hold[] = [];
  private readonly recent = new Map<string, number[]>();
  private readonly waiters: Waiter[] = [];
  private readonly server: Server;
  /** Slack's side of Socket Mode. */
  readonly socketMode = new FakeSocketMode();
  private readonly now: () => number;
  port = 0;

  constructor(private readonly options: FakeSlackOptions = {}) {
    this.now = options.now ?? Date.now;
    this.workspace = new FakeWorkspace(
      { streamExpiryMs: 5 * 60_000, ...options.behaviour },
      this.now,
    );
    this.server = createServer((req, res) => {
      this.peers.push(peerOf(req, 'http'));
      void this.handle(req, res);
    });
    this.server.on('upgrade', (req, socket, head) => {
      this.peers.push(peerOf(req, 'upgrade'));
      this.socketMode.upgrade(req, socket, head);
    });
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  get apiUrl(): string {
    return `${this.origin}/api/`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.socketMode.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Every request the bridge sent, checked against Slack's published shapes and limits.
    assertSlackConformance(this.calls);
  }

  /** The next `count` calls of `method` answer 429 with Retry-After. */
  rateLimitNext(method: string, count: number, retryAfterSec = 1): void {
    this.forced429.set(method, { count, retryAfterSec });
  }

  /** The next `count` calls of `method` fail: the connection drops, or a bare HTTP 500. */
  failNext(method: string, count: number, how: Failure): void {
    this.failures.set(method, { count, how });
  }

  /**
   * Holds the next call of `method` matching `test` until `release()`; `reached` resolves when
   * that call has arrived (a slow Slack, without guessing at timings).
   */
  hold(
    method: string,
    test: (args: Args) => boolean = () => true,
  ): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holds.push({ method, test, reached, released });
    return { reached: arrived, release };
  }

  callsOf(method: string): FakeCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Resolves with the first recorded call (past or future) that matches. */
  waitForCall(test: (call: FakeCall) => boolean): Promise<FakeCall> {
    const seen = this.calls.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  waitFor(
    method: string,
    test: (args: Args, call: FakeCall) => boolean = () => true,
  ): Promise<FakeCall> {
    return this.waitForCall(
      (call) => call.method === method && call.status === 200 && test(call.args, call),
    );
  }

  private record(call: FakeCall): void {
    this.calls.push(call);
    for (const waiter of [...this.waiters]) {
      if (waiter.test(call)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(call);
      }
    }
  }

  /**
   * Tiers count per workspace (per method and the workspace the token belongs to), and for the
   * methods Slack also counts per channel, per channel. A refused call is not counted.
   */
  private overLimit(method: string, team: string | undefined, args: Args): number {
    const windowMs = this.options.windowMs ?? 60_000;
    const rules: { key: string; limit: number; windowMs: number }[] = [];
    const limit = this.options.tierLimits?.[method];
    if (limit !== undefined) rules.push({ key: `${team ?? ''}|${method}`, limit, windowMs });
    const perChannel = this.options.channelLimits?.[method];
    const named = args.channel ?? args.channel_id;
    if (perChannel !== undefined && typeof named === 'string') {
      const key = `${team ?? ''}|${method}|${named}`;
      rules.push({ key, limit: perChannel, windowMs });
      const burst = Math.floor(perChannel / 6) + CHANNEL_BURST;
      rules.push({ key: `${key}|burst`, limit: burst, windowMs: windowMs / 6 });
    }
    const now = this.now();
    const counted = rules.map((rule) => {
      const times = (this.recent.get(rule.key) ?? []).filter((t) => now - t < rule.windowMs);
      this.recent.set(rule.key, times);
      // Over the limit: until the oldest call counted leaves the window.
      const over = times.length >= rule.limit ? times[0]! + rule.windowMs - now : 0;
      return { times, over };
    });
    const wait = Math.max(0, ...counted.map((c) => c.over));
    if (wait > 0) return wait;
    for (const c of counted) c.times.push(now);
    return 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    if (url.pathname.startsWith('/upload/')) {
      // Upload URLs need no token: Slack signs them.
      this.uploads.set(url.pathname.slice('/upload/'.length), await readBytes(req));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK - 1');
      return;
    }
    const body = await readBody(req);
    if (url.pathname.startsWith('/files/')) return this.serveFile(url.pathname, req, res);
    if (url.pathname.startsWith('/response/')) {
      this.responses.push({ path: url.pathname, body: JSON.parse(body || '{}') as Args });
      this.record({
        method: 'response_url',
        args: JSON.parse(body || '{}') as Args,
        at: this.now(),
        status: 200,
      });
      return send(res, 200, { ok: true });
    }
    if (!url.pathname.startsWith('/api/')) return send(res, 404, { ok: false, error: 'not_found' });
    const method = url.pathname.slice('/api/'.length);
    const args = parseArgs(body, req.headers['content-type']);
    const authorization = req.headers.authorization;
    if (method === 'oauth.v2.access') {
      const reply = this.oauth.access(args, authorization);
      this.record({ method, args, at: this.now(), status: 200, reply });
      return send(res, 200, reply);
    }
    const team = this.teamOf(authorization);
    const held = this.holds.findIndex((h) => h.method === method && h.test(args));
    if (held >= 0) {
      const [hold] = this.holds.splice(held, 1);
      hold!.reached();
      await hold!.released;
    }
    const failure = this.failures.get(method);
    if (failure && failure.count > 0) {
      failure.count -= 1;
      this.record({ method, args, at: this.now(), status: failure.how === 500 ? 500 : 0 });
      if (failure.how === 'network') {
        req.socket.destroy();
        return;
      }
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('upstream failure');
      return;
    }
    const call: FakeCall = {
      method,
      args,
      at: this.now(),
      status: 200,
      authorization,
      ...(team ? { team } : {}),
    };
    const forced = this.forced429.get(method);
    const isForced = forced !== undefined && forced.count > 0;
    const overMs = isForced ? 0 : this.overLimit(method, team, args);
    if (isForced || overMs > 0) {
      if (isForced) forced.count -= 1;
      this.tooManyRequests += 1;
      call.status = 429;
      this.record(call);
      // Slack's Retry-After is whole seconds.
      const retryAfterSec = isForced ? forced.retryAfterSec : Math.max(1, Math.ceil(overMs / 1000));
      res.setHeader('Retry-After', String(retryAfterSec));
      return send(res, 429, { ok: false, error: 'ratelimited' });
    }
    const expected = method === 'apps.connections.open' ? APP_TOKEN : BOT_TOKEN;
    const installed =
      method !== 'apps.connections.open' && this.oauth.teamOf(authorization) !== undefined;
    call.reply =
      authorization === `Bearer ${expected}` || installed
        ? this.dispatch(method, args, authorization)
        : {
            ok: false,
            error: this.oauth.revokedToken(authorization) ? 'token_revoked' : 'invalid_auth',
          };
    this.record(call);
    send(res, 200, call.reply);
  }

  /** The workspace of a bearer token: TEAM for BOT_TOKEN, an OAuth install's own otherwise. */
  private teamOf(authorization: string | undefined): string | undefined {
    if (authorization === `Bearer ${BOT_TOKEN}`) return TEAM;
    return this.oauth.teamOf(authorization);
  }

  private dispatch(method: string, args: Args, authorization: string | undefined): Reply {
    const ws = this.workspace;
    // An OAuth token reaches only its own workspace's channels, as in Slack (assistant.threads.*
    // and files.completeUploadExternal name theirs channel_id).
    const named = args.channel ?? args.channel_id;
    const channel = typeof named === 'string' ? named : undefined;
    if (channel && !this.oauth.reaches(authorization, channel)) {
      return { ok: false, error: 'channel_not_found' };
    }
    switch (method) {
      case 'auth.test':
        return (
          this.oauth.authTest(authorization) ?? {
            ok: true,
            user_id: BOT_USER,
            bot_id: 'BBOT',
            team_id: TEAM,
            user: 'chatbridge',
            team: 'Test',
          }
        );
      case 'apps.connections.open':
        return { ok: true, url: `ws://127.0.0.1:${this.port}/socket` };
      case 'chat.startStream':
        return ws.startStream(args);
      case 'chat.appendStream':
        return ws.appendStream(args);
      case 'chat.stopStream':
        return ws.stopStream(args);
      case 'chat.postMessage':
        return ws.postMessage(args);
      case 'chat.update':
        return ws.update(args);
      case 'chat.postEphemeral':
        return ws.postEphemeral(args);
      case 'assistant.threads.setStatus':
        return ws.setStatus(args);
      case 'assistant.threads.setSuggestedPrompts':
        return suggestedPrompts(args);
      case 'assistant.threads.setTitle':
        return threadTitle(args);
      case 'reactions.add':
        return ws.reaction(args, true);
      case 'reactions.remove':
        return ws.reaction(args, false);
      case 'users.info':
        return ws.userInfo(args);
      case 'conversations.info':
        return ws.conversationInfo(args);
      case 'conversations.replies':
        return ws.replies(args, this.oauth.botUserOf(authorization) ?? BOT_USER);
      case 'views.open':
        return ws.openView(args);
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(args.users)}` } };
      case 'files.getUploadURLExternal': {
        const id = `F${++this.uploadSeq}`;
        return { ok: true, file_id: id, upload_url: `${this.origin}/upload/${id}` };
      }
      case 'files.completeUploadExternal':
        return { ok: true, files: args.files };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  private serveFile(path: string, req: IncomingMessage, res: ServerResponse): void {
    this.fileRequests.push({ path, authorization: req.headers.authorization });
    const file = this.files.get(path);
    const authorized =
      req.headers.authorization === `Bearer ${BOT_TOKEN}` ||
      this.oauth.teamOf(req.headers.authorization) !== undefined;
    if (!authorized || !file) {
      res.writeHead(file ? 302 : 404, file ? { location: 'https://slack.com/signin' } : {});
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType });
    res.end(file.body);
  }

  // ---- Socket Mode (fake-socket.ts) ----

  get acks(): Args[] {
    return this.socketMode.acks;
  }

  /** Resolves once the app connected over Socket Mode. */
  connected(): Promise<void> {
    return this.socketMode.connected();
  }

  /** Sends an events_api envelope and resolves with the app's ack. */
  sendEnvelope(envelopeId: string, payload: Args): Promise<Args> {
    return this.socketMode.deliver(payload, envelopeId).acked;
  }
}

function readBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Slack's rules for an assistant thread's prompts: one to four, each a title and a message. */
function suggestedPrompts(args: Args): Reply {
  if (typeof args.channel_id !== 'string' || args.channel_id === '') {
    return { ok: false, error: 'channel_not_found' };
  }
  if (typeof args.thread_ts !== 'string') return { ok: false, error: 'invalid_thread_ts' };
  const prompts = args.prompts;
  const valid =
    Array.isArray(prompts) &&
    prompts.length >= 1 &&
    prompts.length <= 4 &&
    prompts.every((p: unknown) => {
      const prompt = p as { title?: unknown; message?: unknown };
      return (
        typeof prompt.title === 'string' &&
        prompt.title !== '' &&
        typeof prompt.message === 'string' &&
        prompt.message !== ''
      );
    });
  return valid ? { ok: true } : { ok: false, error: 'invalid_arguments' };
}

function threadTitle(args: Args): Reply {
  if (typeof args.channel_id !== 'string' || args.channel_id === '') {
    return { ok: false, error: 'channel_not_found' };
  }
  if (typeof args.thread_ts !== 'string') return { ok: false, error: 'invalid_thread_ts' };
  if (typeof args.title !== 'string' || args.title.trim() === '') {
    return { ok: false, error: 'invalid_arguments' };
  }
  return { ok: true };
}

const JSON_FIELDS = new Set([
  'prompts',
  'blocks',
  'view',
  'loading_messages',
  'chunks',
  'metadata',
  'attachments',
  'files',
]);

/** The Web API client sends forms with objects as JSON text; JSON bodies are taken as they are. */
function parseArgs(body: string, contentType: string | undefined): Args {
  if (contentType?.includes('application/json')) return JSON.parse(body || '{}') as Args;
  const args: Args = {};
  for (const [key, value] of new URLSearchParams(body)) {
    args[key] = JSON_FIELDS.has(key) ? safeJson(value) : value;
  }
  return args;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
