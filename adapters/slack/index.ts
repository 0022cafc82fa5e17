// The Slack surface: a Bolt app (Socket Mode with an app token, else HTTP at /slack/events) that
// turns mentions, thread follow-ups, DMs and the assistant pane into conversation turns, and
// runs /chatbridge. One workspace with a bot token, or many installed through OAuth (oauth.ts),
// each workspace's calls made with its own token (workspace-auth.ts).
import pTimeout from 'p-timeout';
import type { AddressInfo } from 'node:net';
import { webApi, type App, type CustomRoute } from '@slack/bolt';
import type { BridgeObserver } from '../../src/bridge/observer.js';
import type { ChatAdapter, Conversation } from '../../src/bridge/types.js';
import { silentLogger, type Logger } from '../../src/log.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { RateBudget, StateStore } from '../../src/state/types.js';
import { SlackAdmin, sharedAdminRunner, type AdminRunner } from './admin.js';
import { createSlackAssistant } from './assistant.js';
import { closeOutbound } from '../shared/outbound.js';
import { createBoltApp, type BoltApp } from './bolt-app.js';
import { SlackChannels } from './channels.js';
import type { SlackAdapterConfig } from './config.js';
import { Intake, isIntakeUnavailable } from '../../src/bridge/intake.js';
import {
  DEDUP_TTL_MS,
  EventRouter,
  type EventEnvelope,
  type KeptSlackEvent,
  type SlackMessageEvent,
} from './events.js';
import { WorkspaceFeatures } from './features.js';
import { InFlight } from './in-flight.js';
import { INSTALL_PATH, registerRevocations } from './oauth.js';
import { registerFeedback } from './feedback.js';
import { Pacer } from './pacing.js';
import { SlackUsers } from './users.js';
import { drain, isShuttingDown, ShuttingDownError } from './shutdown.js';
import { createSlackApi } from './web.js';
import { WorkspaceAuth } from './workspace-auth.js';

export {
  slackConfig,
  SlackConfigError,
  type SlackAdapterConfig,
  type SlackOAuthConfig,
} from './config.js';
export { createSlackReplyTarget, slackLimits } from './reply.js';
export type { AdminRunner } from './admin.js';

export interface SlackAdapterDeps {
  conversation: Conversation;
  state: StateStore;
  /** The service client admin commands use. */
  client: ServiceClient;
  /** The admin table; the shared one by default. */
  admin?: AdminRunner;
  /** The chatbot answering where nothing is bound; admin commands fall back to it too. */
  defaultChatbot?: string;
  logger?: Logger;
  now?: () => number;
  /** Calls per minute per workspace and method (tests, benchmarks); Slack's tiers by default. */
  methodLimits?: Readonly<Record<string, number>>;
  /** The window methodLimits count over (default a minute; benchmarks compress time). */
  methodWindowMs?: number;
  /**
   * Where the per-method budgets live: the state store's (shared by replicas on Redis) in
   * `chatbridge start`; this process's own, on `now`, when absent.
   */
  rateBudget?: RateBudget;
  /** How long stop() waits for answers in progress (default 10 s). */
  drainMs?: number;
  /** Told of every Web API call and its outcome (metrics). */
  observer?: BridgeObserver;
  /** HTTP mode: more routes on the receiver's port (GET /healthz, /readyz, /metrics). */
  customRoutes?: CustomRoute[];
  /** How long start() waits for Slack to answer auth.test (default AUTH_TEST_TIMEOUT_MS). */
  authTimeoutMs?: number;
}

/**
 * Slack answers auth.test in well under a second. The Web API client itself has no timeout,
 * so an address that takes the connection and never answers would hold the start silently.
 */
const AUTH_TEST_TIMEOUT_MS = 30_000;

export interface SlackAdapter extends ChatAdapter {
  readonly app: App;
  /** HTTP mode: the port listened on, once started. */
  readonly port: number | undefined;
  /** Resolves when no answer is in progress (tests, graceful shutdown). */
  idle(): Promise<void>;
  /** Threads with messages still on their way to the engine (none when idle). */
  readonly orderedThreads: number;
}

export function createSlackAdapter(
  config: SlackAdapterConfig,
  deps: SlackAdapterDeps,
): SlackAdapter {
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? Date.now;
  const bolt = createBoltApp(config, {
    state: deps.state,
    logger,
    now,
    ...(deps.customRoutes ? { customRoutes: deps.customRoutes } : {}),
  });
  const { app } = bolt;
  const parts = createSlackParts(config, deps, bolt, logger, now);
  const inFlight = new InFlight(logger);
  const run: RunState = { stopping: false, started: false };
  wireHandlers(bolt, parts, { deps, logger, inFlight, run });
  const { idle } = inFlight;
  const { intake, router } = parts;
  let stopped: Promise<void> | undefined;
  let port: number | undefined;
  return {
    name: 'slack',
    app,
    get port() {
      return port;
    },
    get orderedThreads() {
      return parts.router.orderedThreads;
    },
    async start() {
      port = await startSlackApp(config, bolt, parts, logger, deps.authTimeoutMs);
      run.started = true;
      // Events a dead replica kept and never answered are answered here after their lease.
      intake.start(async (kept, work) => inFlight.track(router.resume(kept, work)));
    },
    notReady() {
      if (run.stopping) return 'stopping';
      if (!run.started) return 'not started yet';
      if (bolt.socketConnected && !bolt.socketConnected()) return 'Socket Mode connection down';
      return undefined;
    },
    stop() {
      stopped ??= (async () => {
        const wasStarted = run.started;
        run.stopping = true;
        // What this process still holds when it exits is taken over by another replica.
        intake.stop();
        try {
          // Socket Mode: disconnect first, so Slack sends new events to another connection (one
          // arriving meanwhile is refused, unacknowledged: redelivered). Replies use the Web API.
          if (config.appToken) await app.stop();
          await drain(idle(), deps.drainMs ?? 10_000, () =>
            logger.warn({ inFlight: inFlight.size }, 'slack: stopping with answers unfinished'),
          );
          // An HTTP receiver that never started cannot be stopped (Bolt throws).
          if (!config.appToken && wasStarted) await app.stop();
        } finally {
          await closeOutbound(bolt.outbound);
        }
      })();
      return stopped;
    },
    idle,
  };
}

interface RunState {
  stopping: boolean;
  started: boolean;
}

/** What the handlers share: the paced Web API, who is who, the event router and admin. */
interface SlackParts {
  auth: WorkspaceAuth;
  api: ReturnType<typeof createSlackApi>;
  router: EventRouter;
  intake: Intake<KeptSlackEvent>;
  admin: SlackAdmin;
  /** The bot's user id with a single bot token (set at start; OAuth keeps one per workspace). */
  own: { botUserId: string | undefined };
}

function createSlackParts(
  config: SlackAdapterConfig,
  deps: SlackAdapterDeps,
  bolt: BoltApp,
  logger: Logger,
  now: () => number,
): SlackParts {
  const { app, installs, clientOptions } = bolt;
  const pacer = new Pacer({
    now,
    ...(deps.methodLimits ? { limits: deps.methodLimits } : {}),
    ...(deps.methodWindowMs ? { windowMs: deps.methodWindowMs } : {}),
    ...(deps.rateBudget ? { budget: deps.rateBudget } : {}),
  });
  // What Bolt authorized for each workspace's latest request: its token and bot user.
  const auth = new WorkspaceAuth(
    (token) => new webApi.WebClient(token, { ...clientOptions, logger: bolt.boltLog }),
  );
  const api = createSlackApi(
    app.client,
    pacer,
    deps.observer,
    installs ? (workspace) => auth.client(workspace) : undefined,
  );
  const users = new SlackUsers(api, now);
  const channels = new SlackChannels(api, now);
  const own: SlackParts['own'] = { botUserId: undefined };
  const intake = new Intake<KeptSlackEvent>({
    platform: 'slack',
    state: deps.state,
    log: logger,
    dedupTtlMs: DEDUP_TTL_MS,
  });
  const router = new EventRouter({
    intake,
    api,
    features: new WorkspaceFeatures(),
    logger,
    now,
    conversation: deps.conversation,
    state: deps.state,
    users,
    channels,
    botUserId: (workspace) => auth.botUserId(workspace) ?? own.botUserId,
  });
  const admin = new SlackAdmin({
    api,
    users,
    client: deps.client,
    state: deps.state,
    defaultChatbot: deps.defaultChatbot,
    runner: deps.admin ?? sharedAdminRunner,
    logger,
    botToken: (workspace) => (installs ? auth.token(workspace) : config.botToken),
    apiUrl: config.apiUrl,
    admins: config.admins,
    enterpriseOf: (workspace) => auth.enterpriseId(workspace),
    maxUploadBytes: config.maxUploadBytes,
    ...(bolt.outbound ? { fetch: bolt.outbound.fetch } : {}),
  });
  return { auth, api, router, intake, admin, own };
}

function wireHandlers(
  bolt: BoltApp,
  parts: SlackParts,
  ctx: { deps: SlackAdapterDeps; logger: Logger; inFlight: InFlight; run: RunState },
): void {
  const { app, installs } = bolt;
  const { auth, api, router, admin } = parts;
  const { deps, logger, run } = ctx;
  const { track } = ctx.inFlight;
  // While stopping, events are refused (HTTP 500, or no Socket Mode ack: Slack delivers them
  // again, to another replica or after the restart) rather than acknowledged and dropped.
  app.use(async ({ body, next }) => {
    if (run.stopping && (body as { type?: unknown }).type === 'event_callback') {
      throw new ShuttingDownError();
    }
    await next();
  });
  app.use(async ({ context, body, next }) => {
    const team = (body as { team_id?: unknown }).team_id;
    auth.remember([context.teamId, typeof team === 'string' ? team : undefined], context);
    await next();
  });
  if (installs) registerRevocations(app, installs.store, auth, logger);
  // After the stopping check; claims assistant events and the messages of DM threads, which it
  // hands to the same router as every other message.
  app.assistant(createSlackAssistant({ api, state: deps.state, router, logger, track }));
  // Slack hears back (HTTP 200, the Socket Mode ack) only once the event is kept; an event that
  // could not be kept fails the request (500, no ack: socket-receiver.ts), so Slack delivers it
  // again.
  const onMessage = async ({ event, body }: { event: unknown; body: unknown }) => {
    const received = router.receive(event as SlackMessageEvent, body as EventEnvelope);
    track(received.done);
    await received.kept;
  };
  app.event('app_mention', onMessage);
  app.event('message', onMessage);
  admin.register(app, track);
  registerFeedback(app, { api, logger, state: deps.state, observer: deps.observer }, track);
  app.error(async (caught) => {
    // Both make the receiver answer 500 (or not ack): Slack delivers the event again.
    if (isShuttingDown(caught) || isIntakeUnavailable(caught)) throw caught;
    logger.error({ err: caught }, 'slack: bolt error');
  });
}

/** Starts the receiver; the HTTP port listened on, undefined in Socket Mode. */
async function startSlackApp(
  config: SlackAdapterConfig,
  bolt: BoltApp,
  parts: SlackParts,
  logger: Logger,
  authTimeoutMs = AUTH_TEST_TIMEOUT_MS,
): Promise<number | undefined> {
  const { app, installs } = bolt;
  if (installs) {
    // A wrong key fails here, naming the variable, instead of at every event.
    await installs.records.verifyKey('CHATBRIDGE_SECRET_KEY');
  } else {
    const auth = await pTimeout(app.client.auth.test(), {
      milliseconds: authTimeoutMs,
      message: `slack: auth.test got no answer from ${app.client.slackApiUrl} within ${authTimeoutMs / 1000} s (SLACK_API_URL${config.proxy ? ', or the proxy in HTTPS_PROXY / HTTP_PROXY' : ''})`,
    });
    parts.own.botUserId = auth.user_id;
  }
  if (config.appToken) {
    await app.start();
    logger.info('slack: connected in Socket Mode');
    return undefined;
  }
  const server = await app.start({
    port: config.port,
    ...(config.host ? { host: config.host } : {}),
  });
  const port = (server.address() as AddressInfo).port;
  logger.info(
    { port, ...(installs ? { install: INSTALL_PATH } : {}) },
    installs
      ? 'slack: listening for events at /slack/events, installs at /slack/install'
      : 'slack: listening for events at /slack/events',
  );
  return port;
}
