// Warm-up: after a start on an existing store, the chatbots' search indexes are built in the
// background, within maxIndexedChunks, and close() cancels it cleanly.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService } from '../../src/local-service/index.js';
import { createLogger } from '../../src/log.js';
import { createKnowledgeIndex, type SourceText } from '../../src/local-service/knowledge/index.js';
import { openKeyvStore, type KeyvStore } from '../../src/state/keyv.js';
import { readPieces, startHarness } from './helpers.js';

interface Line {
  msg: string;
  chatbot?: string;
  cause?: string;
  chunks?: number;
}

function capture() {
  const lines: Line[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
  });
  const builds = (cause: string) =>
    lines.filter((l) => l.msg === 'built a chatbot search index' && l.cause === cause);
  return { lines, logger, builds };
}

const source = (chatbotUuid: string, uuid: string, text: string): SourceText => ({
  uuid,
  chatbotUuid,
  title: uuid,
  type: 'upload',
  fileName: `${uuid}.txt`,
  text,
});

/** A store where chatbot "a" has 3 one-chunk sources and "b" has 2. */
async function storeWithTwoChatbots(): Promise<KeyvStore> {
  const store = await openKeyvStore('memory://');
  const writer = await createKnowledgeIndex(store);
  for (const n of [1, 2, 3]) await writer.add(source('a', `a${n}`, `Lanterns number ${n} glow.`));
  for (const n of [1, 2]) await writer.add(source('b', `b${n}`, `Boats number ${n} float.`));
  await writer.close();
  return store;
}

describe('search index warm-up', () => {
  it('builds the indexes before the first search, which then finds them built', async () => {
    const store = await storeWithTwoChatbots();
    const { logger, builds } = capture();
    const index = await createKnowledgeIndex(store, { logger });
    expect(await index.warm!(['a', 'b'])).toEqual({ built: ['a', 'b'], skipped: [] });
    expect(builds('warm-up').map((l) => [l.chatbot, l.chunks])).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    expect((await index.search('a', 'lanterns glow')).length).toBe(3);
    expect((await index.search('b', 'boats')).length).toBe(2);
    expect(builds('search')).toEqual([]);
    await index.close();
    await store.close();
  });

  it('stays within maxIndexedChunks and never drops an index already held', async () => {
    const store = await storeWithTwoChatbots();
    const { lines, logger, builds } = capture();
    const index = await createKnowledgeIndex(store, { logger, maxIndexedChunks: 4 });
    await index.search('b', 'boats'); // held: 2 chunks; "a" (3) no longer fits beside it
    expect(await index.warm!(['a', 'b'])).toEqual({ built: ['b'], skipped: ['a'] });
    expect(lines.filter((l) => l.msg.startsWith('dropped'))).toEqual([]);
    expect(builds('warm-up')).toEqual([]);
    await index.search('b', 'boats');
    expect(builds('search').map((l) => l.chatbot)).toEqual(['b']); // not rebuilt
    await index.close();

    const fresh = await createKnowledgeIndex(store, { maxIndexedChunks: 4 });
    expect(await fresh.warm!(['b', 'a'])).toEqual({ built: ['b'], skipped: ['a'] });
    await fresh.close();
    await store.close();
  });

  it('is cancelled by close() while it is building, which resolves', async () => {
    const store = await storeWithTwoChatbots();
    let parked!: () => void;
    const isParked = new Promise<void>((resolve) => (parked = resolve));
    const index = await createKnowledgeIndex(store, {
      // Parks warm-up after its first source until the index is closing.
      yieldToLoop: (signal) => {
        parked();
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
      },
    });
    const warming = index.warm!(['a', 'b']);
    await isParked;
    await expect(index.close()).resolves.toBeUndefined();
    expect(await warming).toEqual({ built: [], skipped: ['a', 'b'] });
    await store.close();
  });
});

describe('a service started on an existing store', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chatbridge-warm-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('warms the indexes in the background, so the first question rebuilds nothing', async () => {
    const storeUrl = `sqlite://${join(dir, 'warm.sqlite')}`;
    const first = await startHarness({ storeUrl, warmIndexes: false });
    const bot = await first.client.createChatbot({ name: 'Harbour' });
    await first.client.addQaSource(bot.uuid, {
      question: 'When does the ferry leave?',
      answer: 'The ferry leaves at nine every morning.',
    });
    await first.close();

    const { logger, builds } = capture();
    const h = await startHarness({ storeUrl, logger });
    try {
      expect(await h.service.warmUp).toEqual({ built: [bot.uuid], skipped: [] });
      const session = await h.client.createSession(bot.uuid);
      const text = (
        await readPieces(
          await h.client.streamMessage(session.uuid, { query: 'When does the ferry leave?' }),
        )
      ).join('');
      expect(text).toContain('nine every morning');
      expect(builds('warm-up').map((l) => l.chatbot)).toEqual([bot.uuid]);
      expect(builds('search')).toEqual([]);
    } finally {
      await h.close();
    }
    // Off: nothing is built until a question comes.
    const off = await startHarness({ storeUrl, warmIndexes: false });
    expect(await off.service.warmUp).toBeUndefined();
    await off.close();
    // A close right after start, warm-up under way or not, resolves.
    const quick = await startHarness({ storeUrl });
    await expect(quick.close()).resolves.toBeUndefined();
    await quick.service.warmUp; // settled, not left hanging
  });
});

describe('a service given a bad memory bound', () => {
  it('refuses to start, naming the option', async () => {
    await expect(
      startLocalService({ apiKeys: ['k-bound-0001'], maxIndexedChunks: 0 }),
    ).rejects.toThrow(/maxIndexedChunks: must be a whole number of at least 1/);
  });
});
