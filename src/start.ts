// `chatbridge start`: the composition root. Picks the service (configured, or the embedded
// local service), opens the state store, builds the engine, and runs the platform adapters
// whose tokens are present — or the console chat when there are none. With platforms it also
// serves GET /healthz, /readyz and /metrics on PORT, and stops gracefully on SIGTERM.
import { createConsoleAdapter } from '../adapters/console/console.js';
import { configuredPlatforms, type ConfiguredPlatform } from './platforms.js';
import { createConversation, type ChatAdapter } from './bridge/index.js';
import { loadConfig } from './config.js';
import { ensureDemoChatbot } from './embedded.js';
import { createLogger } from './log.js';
import { startOpsServer, opsRoutes, type OpsServer } from './ops/http.js';
import { watchConnections } from './ops/connections.js';
import { createBridgeMetrics } from './ops/metrics.js';
import { observeServiceClient } from './ops/observed-client.js';
import { observeDedup } from './ops/observed-state.js';
import { Readiness } from './ops/readiness.js';
import { connectToService } from './service-connection.js';
import { openState } from './state/index.js';
import { untilStopAsked } from './stop-signal.js';

export interface StartIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** Stops the bridge when aborted, besides SIGINT/SIGTERM (tests). */
  signal?: AbortSignal;
  /** Told the ops port once it listens (tests). */
  onListening?: (port: number) => void;
  /** Told once every platform has started and /readyz checks all it holds (tests). */
  onStarted?: () => void;
}

/** After the drain time, interrupted answers get this long to show their notice. */
export const NOTICE_GRACE_MS = 5_000;

export async function start(io: StartIo): Promise<void> {
  const config = loadConfig(io.env);
  const platforms = configuredPlatforms(io.env);
  // In the console chat, log lines would land in the conversation: only warnings by default.
  const logger = createLogger({
    level: io.env.LOG_LEVEL ?? (platforms.length === 0 ? 'warn' : config.logLevel),
  });
  const metrics = createBridgeMetrics();
  const readiness = new Readiness();

  const rawState = await openState(config.storeUrl, {
    logger,
    lockTtlMs: config.leaseMs,
    intakeLeaseMs: config.leaseMs,
    ...(config.leaseRenewMs !== undefined ? { leaseRenewMs: config.leaseRenewMs } : {}),
  });
  const state = observeDedup(rawState, metrics.observer);
  const service = await connectToService(config, logger.child({ component: 'local-service' }));
  const { embedded } = service;
  const client = observeServiceClient(service.client, metrics.service);
  let defaultChatbot = config.defaultChatbot;
  if (embedded && !defaultChatbot) defaultChatbot = await ensureDemoChatbot(client, state, logger);

  const conversation = createConversation({
    client,
    state,
    defaultChatbot,
    logger,
    observer: metrics.observer,
  });
  metrics.setActivity(() => conversation.activity());
  const shutdown = async () => {
    await service.close();
    await state.close();
  };

  if (platforms.length === 0) {
    const interactive = Boolean(io.stdin.isTTY && io.stdout.isTTY);
    const console = createConsoleAdapter(
      {
        input: io.stdin,
        output: io.stdout,
        interactive,
        greeting: embedded
          ? `chatbridge: talking to the demo chatbot on the embedded local service (${embedded.url}).`
          : `chatbridge: talking to ${config.service?.url}.`,
      },
      { conversation, client, state, defaultChatbot, maxUploadBytes: config.maxUploadBytes },
    );
    await console.start();
    await console.done;
    await shutdown();
    return;
  }

  readiness.add('store', () => rawState.ping(), { cacheMs: 0 });
  // A cheap authenticated call; trusted for a while so probes do not load the service.
  readiness.add('service', () => service.client.listChatbots({ timeoutMs: 2_000 }), {
    cacheMs: 10_000,
  });
  const endpoints = { readiness, metrics };
  const mounted = platforms.find((p) => p.servesHttp);
  // Every adapter made is stopped on the way out, started or not: each holds connections (its
  // SDK's, its proxy's) that would keep the process alive.
  const adapters: ChatAdapter[] = [];
  let ops: OpsServer | undefined;
  const stopAll = async () => {
    readiness.shutDown();
    // Answers still running when the drain time is up end with a notice; the adapters wait
    // NOTICE_GRACE_MS longer for those notices before they disconnect.
    const interrupt = setTimeout(() => {
      const { streaming, waiting } = conversation.activity();
      if (streaming + waiting > 0) logger.warn({ streaming, waiting }, 'interrupting answers');
      conversation.interrupt();
    }, config.drainMs);
    await Promise.all(adapters.map((adapter) => adapter.stop().catch(() => undefined)));
    clearTimeout(interrupt);
    await ops?.close();
    await shutdown();
  };
  try {
    const made = await Promise.allSettled(
      platforms.map((p: ConfiguredPlatform) =>
        p.start({
          conversation,
          client,
          state,
          logger,
          defaultChatbot,
          observer: metrics.observer,
          drainMs: config.drainMs + NOTICE_GRACE_MS,
          sharedStore: rawState.kind === 'redis',
          ...(p === mounted ? { customRoutes: opsRoutes(endpoints) } : {}),
        }),
      ),
    );
    for (const result of made) if (result.status === 'fulfilled') adapters.push(result.value);
    const failed = made.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    for (const adapter of adapters) {
      readiness.add(
        `platform:${adapter.name}`,
        () => {
          const why = adapter.notReady?.();
          if (why !== undefined) throw new Error(why);
        },
        { cacheMs: 0 },
      );
    }
    if (!mounted) {
      ops = await startOpsServer(endpoints, { port: config.port });
      io.onListening?.(ops.port);
    }
    for (const adapter of adapters) await adapter.start();
    watchConnections(adapters, readiness, metrics);
    if (mounted) {
      const port = (adapters[platforms.indexOf(mounted)] as { port?: number }).port;
      if (port !== undefined) io.onListening?.(port);
    }
    io.onStarted?.();
  } catch (error) {
    await stopAll();
    throw error;
  }
  logger.info(
    { adapters: adapters.map((a) => a.name), port: ops?.port ?? config.port },
    'chatbridge is running (GET /healthz, /readyz, /metrics)',
  );
  await untilStopAsked(io.signal);
  logger.info({ drainMs: config.drainMs }, 'stopping: not ready, finishing answers in progress');
  await stopAll();
}
