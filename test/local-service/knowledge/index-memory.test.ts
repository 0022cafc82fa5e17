// The bound on chunks held in memory by the chatbots' search indexes: which index is dropped,
// what a dropped index answers once rebuilt, a chatbot larger than the bound, and adds and
// searches racing a drop. Every source here is one chunk, so counts are exact.
import { describe, expect, it } from 'vitest';
import {
  CHUNKS_NAMESPACE,
  createKnowledgeIndex,
  type SourceText,
} from '../../../src/local-service/knowledge/index.js';
import { createLogger } from '../../../src/log.js';
import { openKeyvStore } from '../../../src/state/keyv.js';

const source = (chatbotUuid: string, uuid: string, text: string, title = uuid): SourceText => ({
  uuid,
  chatbotUuid,
  title,
  type: 'upload',
  fileName: `${uuid}.md`,
  text,
});

/** Words far apart (no typo or prefix match between them): chunk n of a chatbot has word(n). */
const WORDS = ['apple', 'banana', 'cherry', 'damson', 'elder', 'figtree', 'grape'];
const word = (bot: string, n: number) => `${bot}${WORDS[n]}`;

/** Chunks numbered from `from`, chunk n holding word(bot, n). */
const sources = (bot: string, count: number, from = 0) =>
  Array.from({ length: count }, (_, i) =>
    source(
      bot,
      `${bot}-${from + i}`,
      `Note ${from + i} of ${bot}: ${word(bot, from + i)} lives here.`,
    ),
  );

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

interface LogLine {
  level: number;
  msg: string;
  chatbot?: string;
  chunks?: number;
  maxIndexedChunks?: number;
}

/**
 * An index over a memory store whose chunk reads are counted per chatbot (a rebuild reads its
 * sources in one getMany) and whose writes and reads can be held at a gate.
 */
async function setup(maxIndexedChunks: number) {
  const store = await openKeyvStore('memory://');
  const kv = store.namespace<unknown>(CHUNKS_NAMESPACE);
  const rebuilds = new Map<string, number>();
  const gates = new Map<string, { reached: Deferred; release: Deferred }>();
  /** Holds the next store call on `key` until released; resolves `reached` when it arrives. */
  const gate = (key: string) => {
    const held = { reached: deferred(), release: deferred() };
    gates.set(key, held);
    return { reached: held.reached.promise, release: held.release.resolve };
  };
  const pass = async (key: string) => {
    const held = gates.get(key);
    if (held === undefined) return;
    gates.delete(key);
    held.reached.resolve();
    await held.release.promise;
  };
  const realGetMany = kv.getMany.bind(kv);
  const realSet = kv.set.bind(kv);
  kv.getMany = (async (keys: string[]) => {
    const bot = /^source:(.+)-\d+$/.exec(keys[0] ?? '')?.[1] ?? '?';
    rebuilds.set(bot, (rebuilds.get(bot) ?? 0) + 1);
    await pass(`getMany:${bot}`);
    return realGetMany(keys);
  }) as typeof kv.getMany;
  kv.set = (async (key: string, value: unknown) => {
    await pass(`set:${key}`);
    return realSet(key, value);
  }) as typeof kv.set;

  const lines: LogLine[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => lines.push(JSON.parse(line) as LogLine) },
  });
  const index = await createKnowledgeIndex(store, { maxIndexedChunks, logger });
  return {
    index,
    gate,
    rebuildsOf: (bot: string) => rebuilds.get(bot) ?? 0,
    dropped: () => lines.filter((l) => l.msg.startsWith('dropped')).map((l) => l.chatbot),
    warnings: () => lines.filter((l) => l.level === 40),
    /** Adds to the store only: a chatbot not yet searched holds no index. */
    async seed(bot: string, count: number) {
      for (const s of sources(bot, count)) await index.add(s);
    },
  };
}

/** The sources found, in a fixed order (equal scores may come in either order). */
const uuidsOf = (hits: { sourceUuid: string }[]) => hits.map((h) => h.sourceUuid).sort();

describe('the bound on indexed chunks', () => {
  it('drops the least recently searched index first, and rebuilds it when searched again', async () => {
    const t = await setup(6);
    await t.seed('a', 3);
    await t.seed('b', 2);
    await t.seed('c', 2);
    await t.index.search('a', word('a', 0)); // holds a (3)
    await t.index.search('b', word('b', 0)); // holds a, b (5)
    await t.index.search('a', word('a', 1)); // a is now the most recently searched
    expect(t.dropped()).toEqual([]);
    await t.index.search('c', word('c', 0)); // 7 > 6: b goes, not a
    expect(t.dropped()).toEqual(['b']);

    expect(uuidsOf(await t.index.search('a', word('a', 2)))).toEqual(['a-2']);
    expect(t.rebuildsOf('a')).toBe(1); // still held
    expect(uuidsOf(await t.index.search('b', word('b', 1)))).toEqual(['b-1']);
    expect(t.rebuildsOf('b')).toBe(2); // rebuilt from the store
    // Order now: c, a, b (c searched before a's last search): c goes to make room for b.
    expect(t.dropped()).toEqual(['b', 'c']);
  });

  it('drops others, never the index being grown, when an add passes the bound', async () => {
    const t = await setup(5);
    await t.seed('a', 2);
    await t.seed('b', 2);
    await t.index.search('b', word('b', 0));
    await t.index.search('a', word('a', 0)); // b is the least recently searched
    for (const s of sources('b', 2, 2)) await t.index.add(s); // b grows to 4: 6 > 5
    expect(t.dropped()).toEqual(['a']);
    expect(uuidsOf(await t.index.search('b', word('b', 3)))).toEqual(['b-3']);
    expect(t.rebuildsOf('b')).toBe(1); // grown in place, not rebuilt
  });

  it('answers exactly as before once a dropped index is rebuilt', async () => {
    const t = await setup(8);
    const bot = 'docs';
    const texts = [
      '# Installing\n\nRun npm install chatbridge, then npx chatbridge start.',
      '## Testing\n\nRun npm test to run the tests; the suite needs no network.',
      'The pro plan costs 25 dollars a month and adds priority support.',
      'Refunds are issued within 30 days of purchase. Write to support.',
      'Slack threads are answered in the thread; Discord too.',
    ];
    await t.index.add(source(bot, `${bot}-0`, texts[0]!, 'Installation guide'));
    await t.index.search(bot, 'warm'); // held: the rest goes through the in-memory add path
    for (let i = 1; i < texts.length; i++)
      await t.index.add(source(bot, `${bot}-${i}`, texts[i]!, `Doc ${i}`));
    await t.index.add(
      source(bot, `${bot}-2`, 'The pro plan costs 30 dollars a month now.', 'Pricing'),
    );
    await t.index.rename(`${bot}-3`, 'Money back');
    const queries: [string, Parameters<typeof t.index.search>[2]][] = [
      ['how do I run the tests?', {}],
      ['how much is the pro plan', { limit: 2 }],
      ['support', { sourceUuids: [`${bot}-2`, `${bot}-3`] }],
      ['and in Slack?', { context: 'how do I install it' }],
      ['money back refund', {}],
      ['instal', {}],
    ];
    const before = [];
    for (const [query, options] of queries) before.push(await t.index.search(bot, query, options));
    expect(before.every((hits) => hits.length > 0)).toBe(true);

    await t.seed('other', 4);
    await t.index.search('other', word('other', 0)); // 5 + 4 > 8: docs is dropped
    expect(t.dropped()).toEqual([bot]);
    const after = [];
    for (const [query, options] of queries) after.push(await t.index.search(bot, query, options));
    expect(t.rebuildsOf(bot)).toBe(2);
    expect(after).toEqual(before);
  });

  it('keeps a chatbot larger than the bound alone, warning once with the numbers', async () => {
    const t = await setup(3);
    await t.seed('small', 2);
    await t.seed('big', 5);
    await t.index.search('small', word('small', 0));
    expect(uuidsOf(await t.index.search('big', word('big', 4)))).toEqual(['big-4']);
    expect(t.dropped()).toEqual(['small']);
    expect(t.warnings()).toMatchObject([{ chatbot: 'big', chunks: 5, maxIndexedChunks: 3 }]);
    expect(t.warnings()[0]?.msg).toMatch(/more chunks than maxIndexedChunks/);

    await t.index.add(sources('big', 1, 5)[0]!); // grows to 6, still served, no second warning
    expect(uuidsOf(await t.index.search('big', word('big', 5)))).toEqual(['big-5']);
    expect(t.rebuildsOf('big')).toBe(1);
    await t.index.search('small', word('small', 1)); // big is the least recently searched: it goes
    expect(t.dropped()).toEqual(['small', 'big']);
    expect(uuidsOf(await t.index.search('big', word('big', 0)))).toEqual(['big-0']);
    expect(t.rebuildsOf('big')).toBe(2);
    expect(t.warnings()).toHaveLength(1);
  });

  it('loses no add, nor indexes it twice, when its index is dropped mid-add', async () => {
    const t = await setup(4);
    await t.seed('a', 2);
    await t.seed('c', 3);
    await t.index.search('a', word('a', 0));
    // The add has written its source and waits to write a's source list.
    const listWrite = t.gate('set:chatbot:a');
    const adding = t.index.add(sources('a', 1, 2)[0]!);
    await listWrite.reached;
    await t.index.search('c', word('c', 0)); // 2 + 3 > 4: a is dropped while the add is in flight
    expect(t.dropped()).toEqual(['a']);
    // Issued mid-add: the rebuild must wait for the add, or it would miss the new source.
    const searching = t.index.search('a', word('a', 2));
    listWrite.release();
    await adding;
    expect(uuidsOf(await searching)).toEqual(['a-2']);
    expect(uuidsOf(await t.index.search('a', `${word('a', 2)} ${word('a', 0)}`))).toEqual([
      'a-0',
      'a-2',
    ]);
    expect(t.rebuildsOf('a')).toBe(2);
  });

  it('makes searches during a rebuild wait for it, and applies an add queued behind it', async () => {
    const t = await setup(4);
    await t.seed('a', 2);
    await t.seed('c', 3);
    const reading = t.gate('getMany:a');
    const first = t.index.search('a', `${word('a', 2)} ${word('a', 0)}`); // rebuild held at the store read
    await reading.reached;
    const adding = t.index.add(sources('a', 1, 2)[0]!);
    const second = t.index.search('a', `${word('a', 2)} ${word('a', 0)}`);
    await t.index.search('c', word('c', 0)); // holds c (3) while a is still being built
    reading.release();
    // The first search was issued before the add, the second after it.
    expect(uuidsOf(await first)).toEqual(['a-0']);
    await adding;
    expect(uuidsOf(await second)).toEqual(['a-0', 'a-2']);
    expect(t.rebuildsOf('a')).toBe(1); // one rebuild served both searches
    expect(t.dropped()).toEqual(['c']); // a (2 + 1 chunks) is the one in use
  });

  it('refuses a bound that is not a whole number of at least 1', async () => {
    const store = await openKeyvStore('memory://');
    for (const bad of [0, -1, 1.5, Number.NaN])
      await expect(createKnowledgeIndex(store, { maxIndexedChunks: bad })).rejects.toThrow(
        /maxIndexedChunks: must be a whole number of at least 1/,
      );
  });
});
