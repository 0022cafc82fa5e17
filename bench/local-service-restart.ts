// Run by bench/local-service.ts in a fresh process: starts the local service on an existing
// store (path in argv), times the first answer through HTTP from the start of the process's
// work, answers 99 more, and prints {firstAnswerMs, rssMb} as one JSON line.
import { performance } from 'node:perf_hooks';
import { startLocalService } from '../src/local-service/index.js';
import { createServiceClient } from '../src/service/index.js';
import { corpus, questions } from './corpus.js';
import { API_KEY, CHATBOT } from './local-service.js';

const path = process.argv[2]!;
const asked = questions(corpus(11), 100);
const started = performance.now();
const service = await startLocalService({ apiKeys: [API_KEY], storeUrl: `sqlite://${path}` });
const client = createServiceClient({ baseUrl: service.url, apiKey: API_KEY });
const answer = async (query: string) => {
  const session = await client.createSession(CHATBOT);
  let text = '';
  for await (const piece of await client.streamMessage(session.uuid, { query })) text += piece;
  return text;
};
const first = await answer(asked[0]!);
const firstAnswerMs = performance.now() - started;
if (first.trim() === '') throw new Error('the first answer was empty');
for (const query of asked.slice(1)) await answer(query);
const rssMb = process.memoryUsage().rss / 1e6;
await client.close?.();
await service.close();
process.stdout.write(`${JSON.stringify({ firstAnswerMs, rssMb })}\n`);
