// Builds the Bolt app for the configured mode: Socket Mode with an app token (the receiver is
// ours: readiness follows its connection, acks wait for the keep), else HTTP at /slack/events,
// with OAuth installs when configured. No handler is registered here (index.ts wires them).
import { App, type CustomRoute } from '@slack/bolt';
import type { FetchFunction } from '@slack/web-api';
import type { Logger } from '../../src/log.js';
import { proxiedOutbound, type Outbound } from '../shared/outbound.js';
import type { StateStore } from '../../src/state/types.js';
import { boltLogger } from './bolt-logger.js';
import type { SlackAdapterConfig } from './config.js';
import { setUpOAuth, type SlackOAuth } from './oauth.js';
import { createGuardedReceiver } from './receiver.js';
import { KeepFirstSocketReceiver } from './socket-receiver.js';

export interface BoltAppDeps {
  state: StateStore;
  logger: Logger;
  now: () => number;
  customRoutes?: CustomRoute[];
}

export interface BoltApp {
  app: App;
  /** OAuth installs, when configured. */
  installs: SlackOAuth | undefined;
  /** The Web API client options every client made for this app shares. */
  clientOptions: {
    slackApiUrl: string;
    retryConfig: { retries: number };
    rejectRateLimitedCalls: boolean;
    timeout: number;
    fetch?: FetchFunction;
  };
  /** Web API calls, the Socket Mode WebSocket and file transfers through the proxy, if set. */
  outbound: Outbound | undefined;
  /** Bolt's logger, on ours. */
  boltLog: ReturnType<typeof boltLogger>;
  /** Socket Mode: whether the connection is up; undefined in HTTP mode. */
  socketConnected: (() => boolean) | undefined;
}

// A Web API call that has had no answer in 30 s has failed (python-slack-sdk's default timeout);
// without one, a call lost in a hung proxy or connection would hold its answer forever.
const WEB_API_TIMEOUT_MS = 30_000;

export function createBoltApp(config: SlackAdapterConfig, deps: BoltAppDeps): BoltApp {
  const { logger, now } = deps;
  const outbound = proxiedOutbound(config.proxy);
  const web = {
    slackApiUrl: config.apiUrl,
    ...(outbound ? { fetch: outbound.fetch as FetchFunction } : {}),
  };
  // Our pacing decides when calls go out: no silent retries or queueing inside the client.
  const clientOptions = {
    ...web,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: WEB_API_TIMEOUT_MS,
  };
  const common = {
    ...(config.botToken ? { token: config.botToken } : {}),
    clientOptions,
    logger: boltLogger(logger),
  };
  const { oauth } = config;
  const installs = oauth
    ? setUpOAuth(oauth, web, deps.state.installations, deps.state.dedup, logger, now)
    : undefined;
  // Socket Mode: the receiver is ours, so readiness can follow its connection, and an event is
  // acknowledged only once it is kept (socket-receiver.ts).
  const socket = config.appToken
    ? new KeepFirstSocketReceiver({
        appToken: config.appToken,
        logger: common.logger,
        log: logger,
        // apps.connections.open goes to the configured API host too.
        // A copy: the Socket Mode client sets its own retries on the options it is given.
        installerOptions: { clientOptions: { ...web } },
        ...(outbound ? { dispatcher: outbound.dispatcher } : {}),
      })
    : undefined;
  let socketConnected = false;
  socket?.client.on('connected', () => (socketConnected = true));
  socket?.client.on('disconnected', () => (socketConnected = false));
  socket?.client.on('reconnecting', () => (socketConnected = false));
  // HTTP: Bolt's receiver behind our checks (receiver.ts). Handlers only ack and hand work to
  // `track`, so processing before the response adds no delay; it means an answer is tracked
  // before Slack sees the 200 (graceful shutdown, deterministic tests).
  const app = socket
    ? new App({ ...common, receiver: socket })
    : new App({
        ...common,
        receiver: createGuardedReceiver({
          signingSecret: config.signingSecret ?? '',
          logger: common.logger,
          log: logger,
          ...(deps.customRoutes ? { customRoutes: deps.customRoutes } : {}),
          ...installs?.appOptions,
        }),
      });
  return {
    app,
    installs,
    clientOptions,
    outbound,
    boltLog: common.logger,
    socketConnected: socket ? () => socketConnected : undefined,
  };
}
