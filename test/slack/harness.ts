// Runs the real Slack adapter (Bolt, HTTP mode) against the fake Web API, and drives it with
// signed requests as Slack would send them.
import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import type { BridgeObserver } from '../../src/bridge/observer.js';
import type { Conversation } from '../../src/bridge/types.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { ProxySettings } from '../../src/service/index.js';
import { openState } from '../../src/state/index.js';
import type { RateBudget, StateStore } from '../../src/state/types.js';
import {
  createSlackAdapter,
  type AdminRunner,
  type SlackAdapter,
  type SlackOAuthConfig,
} from '../../adapters/slack/index.js';
import type { FakeTime } from '../fake-time.js';
import { BOT_TOKEN, BOT_USER, FakeSlack, TEAM, type FakeSlackOptions } from './fake-slack.js';

export const SIGNING_SECRET = 'test-signing-secret';
export const ALICE = 'UALICE';
export const BOSS = 'UBOSS';

export function sign(
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
  secret = SIGNING_SECRET,
) {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature };
}

export interface HarnessOptions {
  conversation: Conversation;
  client?: ServiceClient;
  state?: StateStore;
  admin?: AdminRunner;
  admins?: string[];
  fake?: FakeSlackOptions;
  /** A fake already running (a second replica of the app on the same workspace). */
  slack?: FakeSlack;
  /** Where the per-method budgets live (the state store's in `chatbridge start`). */
  rateBudget?: RateBudget;
  maxUploadBytes?: number;
  methodLimits?: Record<string, number>;
  methodWindowMs?: number;
  /** The adapter's clock (pacing, edit intervals). */
  now?: () => number;
  /**
   * Fake time (test/fake-time.ts) the whole chain runs on: the harness's requests and idle()
   * move it on until they are done, so pacing waits cost no wall-clock time.
   */
  time?: FakeTime;
  drainMs?: number;
  /** Many workspaces installed through OAuth instead of BOT_TOKEN (oauth-flow.ts installs). */
  oauth?: SlackOAuthConfig;
  logger?: Logger;
  /** Told of API calls and feedback votes (metrics). */
  observer?: BridgeObserver;
  /** The proxy variables' values (HTTP_PROXY, NO_PROXY) the adapter's calls go through. */
  proxy?: ProxySettings;
}

let eventSeq = 0;

export class Harness {
  private constructor(
    readonly fake: FakeSlack,
    readonly adapter: SlackAdapter,
    readonly state: StateStore,
    private readonly time?: FakeTime,
  ) {}

  /** Resolves once the adapter has finished what it was handed (on fake time, moving it on). */
  idle(): Promise<void> {
    return this.settle(this.adapter.idle());
  }

  private settle<T>(promise: Promise<T>): Promise<T> {
    return this.time ? this.time.settle(promise) : promise;
  }

  static async start(options: HarnessOptions): Promise<Harness> {
    const fake = options.slack ?? (await new FakeSlack(options.fake).start());
    fake.workspace.users.set(ALICE, {
      id: ALICE,
      name: 'alice',
      team_id: TEAM,
      profile: { display_name: 'Alice' },
    });
    fake.workspace.users.set(BOSS, { id: BOSS, name: 'boss', team_id: TEAM, is_admin: true });
    fake.workspace.channels.set('C1', 'general');
    const state = options.state ?? (await openState('memory://'));
    const adapter = createSlackAdapter(
      {
        ...(options.oauth ? { oauth: options.oauth } : { botToken: BOT_TOKEN }),
        signingSecret: SIGNING_SECRET,
        port: 0,
        host: '127.0.0.1',
        apiUrl: fake.apiUrl,
        admins: options.admins ?? [],
        maxUploadBytes: options.maxUploadBytes ?? 1024 * 1024,
        ...(options.proxy ? { proxy: options.proxy } : {}),
      },
      {
        conversation: options.conversation,
        state,
        client: options.client ?? ({} as ServiceClient),
        ...(options.admin ? { admin: options.admin } : {}),
        ...(options.methodLimits ? { methodLimits: options.methodLimits } : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(options.methodWindowMs ? { methodWindowMs: options.methodWindowMs } : {}),
        ...(options.drainMs !== undefined ? { drainMs: options.drainMs } : {}),
        ...(options.rateBudget ? { rateBudget: options.rateBudget } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.observer ? { observer: options.observer } : {}),
      },
    );
    await adapter.start();
    return new Harness(fake, adapter, state, options.time);
  }

  get url(): string {
    return `${this.base}/slack/events`;
  }

  /** The adapter's HTTP origin (install routes, ops routes). */
  get base(): string {
    return `http://127.0.0.1:${this.adapter.port}`;
  }

  async close(): Promise<void> {
    await this.idle();
    await this.adapter.stop();
    await this.fake.close();
    await this.state.close();
  }

  /** POSTs a signed body; returns the HTTP status and text. */
  async post(body: string, contentType: string, headers: Record<string, string> = {}) {
    return this.settle(
      (async () => {
        const response = await fetch(this.url, {
          method: 'POST',
          headers: { 'content-type': contentType, ...sign(body), ...headers },
          body,
        });
        return { status: response.status, text: await response.text() };
      })(),
    );
  }

  /** Delivers an Events API callback; returns its event_id. */
  async event(
    event: Record<string, unknown>,
    options: { eventId?: string; retryNum?: number; team?: string } = {},
  ): Promise<{ status: number; eventId: string }> {
    const eventId = options.eventId ?? `Ev${++eventSeq}`;
    const body = JSON.stringify({
      token: 'legacy',
      team_id: options.team ?? TEAM,
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      event,
    });
    const headers: Record<string, string> =
      options.retryNum === undefined
        ? {}
        : { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' };
    const { status } = await this.post(body, 'application/json', headers);
    return { status, eventId };
  }

  /** Sends `/chatbridge text` as `user` in `channel` of `team`; returns the HTTP status. */
  async command(text: string, user: string, channel = 'C1', team = TEAM): Promise<number> {
    const form = new URLSearchParams({
      command: '/chatbridge',
      text,
      team_id: team,
      channel_id: channel,
      user_id: user,
      user_name: user.toLowerCase(),
      trigger_id: `trigger-${++eventSeq}`,
      response_url: `${this.fake.origin}/response/${eventSeq}`,
      api_app_id: 'A1',
    });
    return (await this.post(form.toString(), 'application/x-www-form-urlencoded')).status;
  }

  async interaction(payload: Record<string, unknown>) {
    const form = new URLSearchParams({ payload: JSON.stringify(payload) });
    return this.post(form.toString(), 'application/x-www-form-urlencoded');
  }
}

let tsSeq = 0;
/** A fresh message ts. */
export function nextTs(): string {
  tsSeq += 1;
  return `1600000000.${String(tsSeq).padStart(6, '0')}`;
}

/** A modal `callbackId` submitted by `user` with these input `values`. */
export function viewSubmission(fields: {
  team: string;
  user: { id: string; team_id?: string };
  callbackId: string;
  privateMetadata: unknown;
  values: Record<string, unknown>;
  viewId?: string;
}) {
  return {
    type: 'view_submission',
    team: { id: fields.team },
    user: fields.user,
    api_app_id: 'A1',
    trigger_id: 'trigger-submit',
    view: {
      id: fields.viewId ?? 'V1',
      type: 'modal',
      callback_id: fields.callbackId,
      private_metadata: fields.privateMetadata,
      state: { values: fields.values },
    },
  };
}

/** A trace-level logger and everything it wrote (tests that no secret reaches a log line). */
export function traceLogger(): { logger: Logger; text: () => string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger({ level: 'trace', destination }), text: () => lines.join('') };
}

export function mention(text: string, fields: Record<string, unknown> = {}) {
  return {
    type: 'app_mention',
    user: ALICE,
    text: `<@${BOT_USER}> ${text}`,
    ts: nextTs(),
    channel: 'C1',
    team: TEAM,
    ...fields,
  };
}

export function message(text: string, fields: Record<string, unknown> = {}) {
  return {
    type: 'message',
    user: ALICE,
    text,
    ts: nextTs(),
    channel: 'C1',
    channel_type: 'channel',
    team: TEAM,
    ...fields,
  };
}
