// `chatbridge start`: the composition root. Picks the service (configured, or the embedded
// local service), opens the state store, builds the engine, and runs the platform adapters
// whose tokens are present — or the console chat when there are none.
import { createConsoleAdapter } from '../adapters/console/console.js';
import { configuredPlatforms } from './platforms.js';
import { createConversation } from './bridge/index.js';
import { loadConfig } from './config.js';
import { ensureDemoChatbot } from './embedded.js';
import { createLogger } from './log.js';
import { connectToService } from './service-connection.js';
import { openState } from './state/index.js';

export interface StartIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

export async function start(io: StartIo): Promise<void> {
  const config = loadConfig(io.env);
  const platforms = configuredPlatforms(io.env);
  // In the console chat, log lines would land in the conversation: only warnings by default.
  const logger = createLogger({
    level: io.env.LOG_LEVEL ?? (platforms.length === 0 ? 'warn' : config.logLevel),
  });

  const state = await openState(config.storeUrl, { logger });
  const service = await connectToService(
    config,
    io.env,
    logger.child({ component: 'local-service' }),
  );
  const { client, embedded } = service;
  let defaultChatbot = config.defaultChatbot;
  if (embedded && !defaultChatbot) defaultChatbot = await ensureDemoChatbot(client, state, logger);

  const conversation = createConversation({ client, state, defaultChatbot, logger });
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

  const adapters = platforms.map((p) =>
    p.start({ conversation, client, state, logger, defaultChatbot }),
  );
  const started: typeof adapters = [];
  const stopAll = async () => {
    for (const adapter of started.reverse()) await adapter.stop().catch(() => undefined);
    await shutdown();
  };
  try {
    for (const adapter of adapters) {
      await adapter.start();
      started.push(adapter);
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  logger.info({ adapters: adapters.map((a) => a.name) }, 'chatbridge is running');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  logger.info('stopping');
  await stopAll();
}
