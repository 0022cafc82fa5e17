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
import { connectToService } from './service-connection.js';
import { openState } from './state/index.js';

export async function runAdminCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: { write(text: string): unknown },
): Promise<number> {
  const config = loadConfig(env);
  const state = await openState(config.storeUrl);
  try {
    const { client, embedded, close } = await connectToService(config, env);
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
