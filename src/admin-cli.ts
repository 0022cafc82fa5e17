// `chatbridge admin <command …>`: the shared admin table from the shell. Talks to the configured
// service, or to the embedded local service's data when none is configured.
import {
  hasError,
  localFileReader,
  localFileWriter,
  renderText,
  runAdminTokens,
} from './admin/index.js';
import { loadConfig } from './config.js';
import { DEMO_CHATBOT_NAME } from './embedded.js';
import type { ServiceClient } from './service/api.js';
import {
  connectToService,
  type ServiceConnection,
  usesEmbeddedService,
} from './service-connection.js';
import { openState } from './state/index.js';

export async function runAdminCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: { write(text: string): unknown },
): Promise<number> {
  const config = loadConfig(env);
  const state = await openState(config.storeUrl);
  try {
    const { client, close } = connectOnFirstCall(() => connectToService(config));
    try {
      // The same fallback as the chat: the configured chatbot, or the embedded demo one (made
      // by the first `npm start`; by name, so a command that needs no chatbot costs nothing).
      const defaultChatbot =
        config.defaultChatbot ?? (usesEmbeddedService(config) ? DEMO_CHATBOT_NAME : undefined);
      const blocks = await runAdminTokens(args.length > 0 ? args : ['help'], {
        platform: 'console',
        workspace: 'local',
        channel: 'console',
        userId: 'cli',
        isAdmin: true,
        client,
        state,
        defaultChatbot,
        readFile: localFileReader(config.maxUploadBytes),
        writeFile: localFileWriter(),
      });
      out.write(`${renderText(blocks)}\n`);
      return hasError(blocks) ? 1 : 0;
    } finally {
      await close();
    }
  } finally {
    await state.close();
  }
}

/**
 * A client that connects when a command first calls the service: `help`, a command's `--help`
 * and a mistyped command answer without one (the embedded service takes seconds to start, and
 * would create its data folder only to print the usage).
 */
function connectOnFirstCall(connect: () => Promise<ServiceConnection>): {
  client: ServiceClient;
  close(): Promise<void>;
} {
  let connection: Promise<ServiceConnection> | undefined;
  const client = new Proxy({} as ServiceClient, {
    get(_, method) {
      // Not a thenable: awaiting the client itself must not call the service.
      if (typeof method !== 'string' || method === 'then') return undefined;
      return async (...args: unknown[]) => {
        const connected = (await (connection ??= connect())).client;
        const call = connected[method as keyof ServiceClient] as (...a: unknown[]) => unknown;
        return call.apply(connected, args);
      };
    },
  });
  return {
    client,
    // A connection that failed was reported by the command that needed it.
    close: async () => (await connection?.catch(() => undefined))?.close(),
  };
}
