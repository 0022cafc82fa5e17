// Local service knowledge benchmarks: ingest throughput (chunk + index + persist, memory
// store), BM25 retrieval latency over 100k chunks with question-like queries, and the time to
// rebuild that index from the store once it has been dropped to stay within maxIndexedChunks.
import { performance } from 'node:perf_hooks';
import { createLogger } from '../src/log.js';
import { openKeyvStore } from '../src/state/keyv.js';
import { createKnowledgeIndex, type KnowledgeIndex } from '../src/local-service/knowledge/index.js';
import { percentile, type BenchRow } from './table.js';

const AREA = 'local service';

/** A small seeded PRNG (mulberry32), so every run measures the same text. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES =
  'ka lo mi ne ta ri so vu de pa an el or in us ber con tion pre ex ly ment ing gra phi stra'.split(
    ' ',
  );
const FILLERS =
  'the a of to and in is for that with on as by it from at be this are or an which'.split(' ');

/** A vocabulary of pseudo-words, drawn with a Zipf-like skew (few common, many rare). */
function vocabulary(rand: () => number, size: number): { words: string[]; pick: () => string } {
  const words = new Set<string>();
  while (words.size < size) {
    const n = 2 + Math.floor(rand() * 3);
    let word = '';
    for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    words.add(word);
  }
  const list = [...words];
  // rank ~ size^u gives a heavy head and a long tail
  const pick = () =>
    list[Math.min(list.length - 1, Math.floor(Math.pow(list.length, rand())) - 1)]!;
  return { words: list, pick };
}

/**
 * Synthetic documents: paragraphs of 2-6 sentences drawn from a pool of 50k sentences of
 * 8-21 words (40% filler/stop words, the rest from the skewed vocabulary), sometimes under a
 * short heading. Drawing from a pool keeps generation cheap next to what is measured.
 */
function corpus(seed: number): {
  words: string[];
  pick: () => string;
  rand: () => number;
  doc: (bytes: number) => string;
} {
  const rand = random(seed);
  const { words, pick } = vocabulary(rand, 30_000);
  const pool = Array.from({ length: 50_000 }, () => {
    const n = 8 + Math.floor(rand() * 14);
    const sentence: string[] = [];
    for (let w = 0; w < n; w++)
      sentence.push(rand() < 0.4 ? FILLERS[Math.floor(rand() * FILLERS.length)]! : pick());
    const text = sentence.join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  });
  const doc = (bytes: number) => {
    const paragraphs: string[] = [];
    let length = 0;
    while (length < bytes) {
      if (rand() < 0.15) paragraphs.push(`${pick()} ${pick()} overview`);
      const count = 2 + Math.floor(rand() * 5);
      const sentences: string[] = [];
      for (let i = 0; i < count; i++) sentences.push(pool[Math.floor(rand() * pool.length)]!);
      const paragraph = sentences.join(' ');
      paragraphs.push(paragraph);
      length += paragraph.length + 2;
    }
    return paragraphs.join('\n\n');
  };
  return { words, pick, rand, doc };
}

async function ingestThroughput(): Promise<BenchRow> {
  const { doc } = corpus(7);
  const docs = Array.from({ length: 200 }, () => doc(100_000)); // 20 MB
  const bytes = docs.reduce((sum, doc) => sum + Buffer.byteLength(doc), 0);
  const store = await openKeyvStore('memory://');
  const index = await createKnowledgeIndex(store);
  await index.search('bench', 'warm up'); // the chatbot's index exists, as after a first search
  const started = performance.now();
  for (let i = 0; i < docs.length; i++) {
    await index.add({
      uuid: `s${i}`,
      chatbotUuid: 'bench',
      title: `Doc ${i}`,
      type: 'upload',
      fileName: `doc${i}.txt`,
      text: docs[i]!,
    });
  }
  const seconds = (performance.now() - started) / 1000;
  await index.close();
  await store.close();
  const rate = bytes / 1e6 / seconds;
  return {
    area: AREA,
    metric: `ingest throughput (${(bytes / 1e6).toFixed(0)} MB text, chunk + index + store)`,
    value: `${rate.toFixed(1)} MB/s`,
    target: '>= 1 MB/s',
    ok: rate >= 1,
  };
}

/**
 * Room for the 100k-chunk chatbot (the ingest loop stops within one 200 kB document, well
 * under 1000 chunks, past 100 000), so that a second chatbot can push it out.
 */
const REBUILD_BOUND = 101_000;

/**
 * Makes a second chatbot large enough to push the first out of memory, then times the first
 * one's next search (its rebuild from the store, then the query); checks it answers as before.
 */
async function rebuildAfterEviction(
  index: KnowledgeIndex,
  dropped: string[],
  chunks: number,
  queries: string[],
  doc: (bytes: number) => string,
): Promise<BenchRow> {
  const before = [];
  for (const query of queries) before.push(await index.search('bench', query));
  let other = 0;
  for (let i = 0; other <= REBUILD_BOUND - chunks; i++) {
    const added = await index.add({
      uuid: `o${i}`,
      chatbotUuid: 'other',
      title: `Other ${i}`,
      type: 'upload',
      fileName: `other${i}.txt`,
      text: doc(200_000),
    });
    other += added.chunks;
  }
  await index.search('other', 'push the bench chatbot out');
  if (!dropped.includes('bench')) throw new Error('the bench chatbot was not dropped');
  const started = performance.now();
  const first = await index.search('bench', queries[0]!);
  const ms = performance.now() - started;
  const after = [first];
  for (const query of queries.slice(1)) after.push(await index.search('bench', query));
  if (JSON.stringify(after) !== JSON.stringify(before))
    throw new Error('the rebuilt index answers differently');
  return {
    area: AREA,
    metric: `index rebuild after eviction (${chunks} chunks, memory store)`,
    value: `${ms.toFixed(0)} ms`,
    target: '',
  };
}

async function retrievalLatency(): Promise<BenchRow[]> {
  const { words, pick, rand, doc } = corpus(11);
  const store = await openKeyvStore('memory://');
  const dropped: string[] = [];
  const logger = createLogger({
    level: 'info',
    destination: {
      write: (line: string) => {
        const { chatbot, msg } = JSON.parse(line) as { chatbot: string; msg: string };
        if (msg.startsWith('dropped')) dropped.push(chatbot);
      },
    },
  });
  const index = await createKnowledgeIndex(store, { maxIndexedChunks: REBUILD_BOUND, logger });
  await index.search('bench', 'warm up');
  let chunks = 0;
  for (let i = 0; chunks < 100_000; i++) {
    const text = doc(200_000);
    const added = await index.add({
      uuid: `s${i}`,
      chatbotUuid: 'bench',
      title: `${pick()} guide ${i}`,
      type: 'upload',
      fileName: `doc${i}.txt`,
      text,
    });
    chunks += added.chunks;
  }
  // Question-like queries: filler words plus 2-4 topic words of mixed frequency.
  const queries = Array.from({ length: 500 }, () => {
    const topic = Array.from({ length: 2 + Math.floor(rand() * 3) }, () =>
      rand() < 0.5 ? pick() : words[Math.floor(rand() * 5000)]!,
    );
    return `how do I ${topic.join(' ')} with the ${pick()}?`;
  });
  for (const query of queries.slice(0, 20)) await index.search('bench', query);
  const times: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await index.search('bench', query, { limit: 5 });
    times.push(performance.now() - started);
  }
  const rebuild = await rebuildAfterEviction(index, dropped, chunks, queries.slice(0, 20), doc);
  await index.close();
  await store.close();
  const p95 = percentile(times, 95);
  return [
    {
      area: AREA,
      metric: `retrieval latency p50 (${chunks} chunks)`,
      value: `${percentile(times, 50).toFixed(2)} ms`,
      target: '',
    },
    {
      area: AREA,
      metric: `retrieval latency p95 (${chunks} chunks)`,
      value: `${p95.toFixed(2)} ms`,
      target: '<= 10 ms',
      ok: p95 <= 10,
    },
    rebuild,
  ];
}

export async function run(): Promise<BenchRow[]> {
  return [await ingestThroughput(), ...(await retrievalLatency())];
}
