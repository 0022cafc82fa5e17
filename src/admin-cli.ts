// `chatbridge admin <command …>`: the shared admin table from the shell. Talks to the configured
// service, or to the embedded local service's data when none is configured.
import { hasError, localFileReader, renderText, runAdminTokens } from './admin/index.js';
import { loadConfig } from './config.js';
import { DEMO_CHATBOT_NAME, startEmbeddedService, type EmbeddedService } from './embedded.js';
import { createServiceClient, proxyFromEnv } from './service/index.js';
import { openState } from './state/index.js';

export async function runAdminCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: { write(text: string): unknown },
): Promise<number> {
  const config = loadConfig(env);
  const state = await openState(config.storeUrl);
  let embedded: EmbeddedService | undefined;
  try {
    if (!config.service) embedded = await startEmbeddedService(config);
    const proxy = config.service ? proxyFromEnv(env) : undefined;
    const client = createServiceClient({
      baseUrl: config.service?.url ?? embedded!.url,
      apiKey: config.service?.apiKey ?? embedded!.apiKey,
      ...(proxy ? { dispatcher: proxy } : {}),
    });
    try {
      // The same fallback as the chat: the configured chatbot, or the embedded demo one (made
      // by the first `npm start`; by name, so a command that needs no chatbot costs nothing).
      const defaultChatbot = config.defaultChatbot ?? (embedded ? DEMO_CHATBOT_NAME : undefined);
      const blocks = await runAdminTokens(args.length > 0 ? args : ['help'], {
        platform: 'console',
        workspace: 'local',
        channel: 'console',
        userId: 'cli',
        isAdmin: true,
        client,
        state,
        ...(defaultChatbot ? { defaultChatbot } : {}),
        readFile: localFileReader(config.maxUploadBytes),
      });
      out.write(`${renderText(blocks)}\n`);
      return hasError(blocks) ? 1 : 0;
    } finally {
      await client.close();
      await proxy?.close();
    }
  } finally {
    await embedded?.close();
    await state.close();
  }
}
