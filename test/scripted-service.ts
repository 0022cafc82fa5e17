// The local service with its answers written by the test (the rest, sources and sessions, as
// shipped), a client, and one chatbot: what the replica tests put behind their processes.
import { createDefaultKnowledge } from '../src/local-service/knowledge-default.js';
import { startLocalService, type LocalService } from '../src/local-service/index.js';
import type { ServiceClient } from '../src/service/api.js';
import { createServiceClient } from '../src/service/index.js';
import { sharedConverters } from './converters.js';

export interface ScriptedService {
  service: LocalService;
  client: ServiceClient;
  /** The one chatbot, with room for every question a test sends (100 a minute). */
  chatbot: string;
  /** Closes the client, then the service. */
  close(): Promise<void>;
}

export async function startScriptedService(
  answer: (query: string) => AsyncIterable<string>,
): Promise<ScriptedService> {
  const base = await createDefaultKnowledge({
    refusePrivateUrls: false,
    pool: sharedConverters,
    maxFetchBytes: 1024,
    fetchTimeoutMs: 1000,
  });
  const service = await startLocalService({
    apiKeys: ['test-key'],
    knowledge: {
      extractText: (name, bytes, type) => base.extractText(name, bytes, type),
      fetchUrl: (url, signal) => base.fetchUrl(url, signal),
      close: () => base.close(),
      answer: (request) => ({ pieces: answer(request.query), citations: () => ({}) }),
    },
  });
  const client = createServiceClient({ baseUrl: service.url, apiKey: 'test-key' });
  const chatbot = (await client.createChatbot({ name: 'Support', rate_limit: [100, 60] })).uuid;
  const close = async () => {
    await client.close();
    await service.close();
  };
  return { service, client, chatbot, close };
}
