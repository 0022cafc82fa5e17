// The chatbot service a command talks to: the configured one (through the proxy variables, if
// set), or the embedded local service when none is configured. One place opens and closes both.
import type { BridgeConfig } from './config.js';
import { startEmbeddedService, type EmbeddedService } from './embedded.js';
import type { Logger } from './log.js';
import type { ServiceClient } from './service/api.js';
import { createServiceClient } from './service/index.js';

export interface ServiceConnection {
  client: ServiceClient;
  /** Set when the embedded local service answers (nothing configured). */
  embedded?: EmbeddedService;
  /** Closes the client, then the embedded service. */
  close(): Promise<void>;
}

/** Whether commands talk to the embedded local service: no service is configured. */
export const usesEmbeddedService = (config: BridgeConfig): boolean => !config.service;

/** `logger` receives the embedded service's own warnings; default silent. */
export async function connectToService(
  config: BridgeConfig,
  logger?: Logger,
): Promise<ServiceConnection> {
  if (!config.service) {
    const embedded = await startEmbeddedService(config, logger);
    const client = createServiceClient({ baseUrl: embedded.url, apiKey: embedded.apiKey });
    return {
      client,
      embedded,
      close: async () => {
        await client.close();
        await embedded.close();
      },
    };
  }
  // Only a remote service goes through the proxy variables; the embedded one never does.
  const client = createServiceClient({
    baseUrl: config.service.url,
    apiKey: config.service.apiKey,
    proxy: config.proxy,
  });
  return { client, close: () => client.close() };
}
