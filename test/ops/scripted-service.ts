// A local service for the `chatbridge start` tests: questions containing "slow" are answered
// with a first piece, then held until `hold` settles (an answer in progress at a stop).
import { startLocalService, type LocalService } from '../../src/local-service/index.js';
import { createDefaultKnowledge } from '../../src/local-service/knowledge-default.js';
import type { KnowledgePort } from '../../src/local-service/knowledge-port.js';
import { sharedConverters } from '../converters.js';

export const API_KEY = 'ops-test-key';

/** A local service whose answers are scripted: "slow" questions hold after their first piece. */
export async function scriptedService(hold: Promise<void>): Promise<LocalService> {
  const base = await createDefaultKnowledge({
    refusePrivateUrls: false,
    pool: sharedConverters,
    maxFetchBytes: 1024,
    fetchTimeoutMs: 1000,
  });
  const knowledge: KnowledgePort = {
    ...base,
    answer(request) {
      const slow = request.query.includes('slow');
      return {
        pieces: (async function* () {
          yield slow ? 'Working on it' : 'Refunds take five days.';
          if (slow) await hold;
        })(),
        citations: () => ({}),
      };
    },
  };
  return startLocalService({ apiKeys: [API_KEY], knowledge });
}
