// A service handed converter processes (extractionPool, as the tests share theirs) reads its
// texts in them, and leaves them running when it closes: their owner closes them.
import { expect, it } from 'vitest';
import { ExtractionPool } from '../../src/local-service/extraction/index.js';
import { startHarness } from './helpers.js';

it('a service given converter processes uses them and leaves them to their owner', async () => {
  const jobs: string[] = [];
  const pool = new ExtractionPool({ workers: 1, onJobStart: (job) => jobs.push(job.kind) });
  try {
    for (const name of ['first', 'second']) {
      const h = await startHarness({ extractionPool: pool });
      const bot = await h.client.createChatbot({ name });
      const source = await h.client.addQaSource(bot.uuid, { question: 'When?', answer: 'Now.' });
      expect(source.status).toBe('success');
      await h.close();
      // Still running after the service closed; the second service uses the same process.
      expect(pool.size).toBe(1);
    }
    expect(jobs).toEqual(['prepare', 'prepare']);
  } finally {
    await pool.close();
  }
  expect(pool.size).toBe(0);
});
