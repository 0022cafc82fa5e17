// The embedded default: with no service configured, chatbridge runs the local service in this
// process and sets up a demo chatbot that knows chatbridge's own README and docs.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BridgeConfig } from './config.js';
import type { LocalServiceOptions } from './local-service/options.js';
import type { Logger } from './log.js';
import type { ServiceClient } from './service/api.js';
import { isServiceError } from './service/errors.js';
import type { StateStore } from './state/types.js';

export const DEMO_CHATBOT_NAME = 'chatbridge demo';

/** The package root (where package.json is), from src/ or dist/src/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** The key of the embedded service: made once and kept, since chatbots belong to their key. */
async function embeddedKey(dataDir: string): Promise<string> {
  const path = resolve(dataDir, 'embedded-api-key');
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    const key = randomBytes(24).toString('hex');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${key}\n`, { mode: 0o600 });
    await chmod(path, 0o600);
    return key;
  }
}

export interface EmbeddedService {
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

/**
 * `logger` receives the service's own warnings (a failing language model, …); default silent.
 * `shared.extractionPool`: converter processes its owner shares and closes (as the tests do);
 * by default the service starts its own.
 */
export async function startEmbeddedService(
  config: BridgeConfig,
  logger?: Logger,
  shared: Pick<LocalServiceOptions, 'extractionPool'> = {},
): Promise<EmbeddedService> {
  const apiKey = await embeddedKey(config.dataDir);
  // Loaded here, not at the top: a CLI or bridge talking to a remote service never loads the
  // local one (its web server, SQLite and converters are most of a start's module loading).
  const { startLocalService } = await import('./local-service/index.js');
  const service = await startLocalService({
    port: 0,
    apiKeys: [apiKey],
    storeUrl: `sqlite://${config.dataDir}/local-service.sqlite`,
    streamDelayMs: config.streamDelayMs,
    // url, model, key and the first-byte and idle timeouts, all from the environment.
    llm: config.llm,
    embeddings: config.embeddings,
    // The same limit the chat surfaces check, so a file they accept is never refused here.
    maxUploadBytes: config.maxUploadBytes,
    logger,
    ...shared,
  });
  return { url: service.url, apiKey, close: () => service.close() };
}

/** The files the demo chatbot learns from: the README and every Markdown file in docs/. */
async function demoFiles(): Promise<string[]> {
  const root = packageRoot();
  const docs = join(root, 'docs');
  const names = existsSync(docs) ? (await readdir(docs)).filter((n) => n.endsWith('.md')) : [];
  return [join(root, 'README.md'), ...names.sort().map((n) => join(docs, n))].filter((p) =>
    existsSync(p),
  );
}

/**
 * Finds the demo chatbot, or creates it with citations on, and makes sure it has every doc as a
 * source: a run that stopped half-way through the uploads is completed by the next one.
 */
export async function ensureDemoChatbot(
  client: ServiceClient,
  state: StateStore,
  logger: Logger,
): Promise<string> {
  const existing = (await client.listChatbots()).find((c) => c.name === DEMO_CHATBOT_NAME);
  const chatbot =
    existing ??
    (await client.createChatbot({
      name: DEMO_CHATBOT_NAME,
      visibility: 'private',
      show_citations: true,
    }));
  const known = new Set((await state.sources.list(chatbot.uuid)).map((s) => s.title));
  for (const path of await demoFiles()) {
    const name = path.slice(packageRoot().length + 1).replaceAll('/', '-');
    if (known.has(name)) continue;
    const source = await client
      .uploadSource(chatbot.uuid, {
        file: new Uint8Array(await readFile(path)),
        file_name: name,
        content_type: 'text/markdown',
      })
      // Uploaded before the registry heard of it: the service answers 409 with the source.
      .catch((error: unknown) => {
        if (isServiceError(error, 'conflict') && error.existing) return error.existing;
        throw error;
      });
    await state.sources.add({
      uuid: source.uuid,
      chatbotUuid: chatbot.uuid,
      title: name,
      type: source.type,
      createdAt: new Date().toISOString(),
    });
  }
  if (!existing) logger.info({ chatbot: chatbot.uuid }, 'created the demo chatbot');
  return chatbot.uuid;
}
