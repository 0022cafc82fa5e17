// The embeddings client against a loopback fake, rank fusion, and the vector store's arithmetic.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isCodedError, ErrorCode } from '../../../src/errors.js';
import {
  createEmbeddingsClient,
  EMBED_BATCH,
  endpointOf,
  type EmbeddingsClient,
} from '../../../src/local-service/knowledge/embeddings.js';
import {
  fuseWithNearest,
  reciprocalRankFusion,
  RRF_K,
} from '../../../src/local-service/knowledge/fusion.js';
import { unitVector, VectorStore } from '../../../src/local-service/knowledge/vector-store.js';
import { openServiceDb } from '../../../src/local-service/db/open.js';
import { seededRandom } from '../../seeded-random.js';
import { loadConfig } from '../../../src/config.js';
import { serviceOptionsFrom } from '../../../src/local-service/command.js';
import {
  FAKE_DIMENSIONS,
  fakeVector,
  startFakeEmbeddings,
  type FakeEmbeddings,
} from './fake-embeddings.js';

const KEY = 'sk-embed-secret-4242';
let fake: FakeEmbeddings;
let client: EmbeddingsClient;

beforeAll(async () => {
  fake = await startFakeEmbeddings();
  client = createEmbeddingsClient({
    url: fake.url,
    model: 'fake-embed',
    apiKey: KEY,
    timeoutMs: 2_000,
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
});

/** The error an embed call ends in (the test fails if it succeeds). */
async function failure(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error as Error,
  );
  if (outcome === undefined) throw new Error('expected the call to fail');
  return outcome;
}

describe('the embeddings client', () => {
  it('sends the model, the key and the texts in batches, and returns one vector per text in order', async () => {
    const texts = Array.from(
      { length: EMBED_BATCH * 2 + 6 },
      (_, i) => `text number ${i} word${i}`,
    );
    const vectors = await client.embed(texts);
    expect(fake.requests.map((r) => r.inputs.length)).toEqual([EMBED_BATCH, EMBED_BATCH, 6]);
    expect(fake.requests.every((r) => r.model === 'fake-embed')).toBe(true);
    expect(fake.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(vectors).toHaveLength(texts.length);
    expect([...vectors[40]!]).toEqual(fakeVector(texts[40]!));
    expect(vectors[0]!.length).toBe(FAKE_DIMENSIONS);
  });

  it('takes a base address or the full endpoint', () => {
    expect(endpointOf('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1/embeddings');
    expect(endpointOf('http://h/v1/')).toBe('http://h/v1/embeddings');
    expect(endpointOf('http://h/v1/embeddings')).toBe('http://h/v1/embeddings');
  });

  it.each([
    ['down', /EMBEDDINGS_URL: answered HTTP 500: model crashed/],
    ['not-json', /EMBEDDINGS_URL: the answer is not JSON: <html>gateway/],
    ['short', /EMBEDDINGS_URL: asked for 2 vectors, the answer has 1/],
    ['huge', /EMBEDDINGS_URL: the answer is larger than 16777216 bytes/],
  ] as const)(
    'a bad answer (%s) is a clear error naming the setting, without the key',
    async (mode, words) => {
      fake.mode = mode;
      const error = await failure(client.embed(['one text', 'another text']));
      expect(isCodedError(error, ErrorCode.EmbeddingsFailed)).toBe(true);
      expect(error.message).toMatch(words);
      expect(error.message).not.toContain(KEY);
    },
  );

  it('refuses vectors of different sizes in one answer, and numbers that are not numbers', async () => {
    const { vectorsOf } = await import('../../../src/local-service/knowledge/embeddings.js');
    expect(() => vectorsOf({ data: [{ embedding: [1, 2] }, { embedding: [1, 2, 3] }] }, 2)).toThrow(
      /EMBEDDINGS_URL: vectors of different sizes in one answer \(2 and 3\)/,
    );
    expect(() => vectorsOf({ data: [{ embedding: [1, 'x'] }] }, 1)).toThrow(/other than numbers/);
    expect(() => vectorsOf({ data: [{ embedding: [] }] }, 1)).toThrow(/not a list of numbers/);
    expect(() => vectorsOf({ nothing: true }, 1)).toThrow(/no "data" list/);
    // The answer's own index orders the vectors.
    const [first, second] = vectorsOf(
      {
        data: [
          { index: 1, embedding: [2] },
          { index: 0, embedding: [1] },
        ],
      },
      2,
    );
    expect([first![0], second![0]]).toEqual([1, 2]);
  });

  it('gives up on a silent endpoint at its deadline, saying so', async () => {
    fake.mode = 'silent';
    const started = performance.now();
    // Nothing can answer before it: a short bound costs no margin.
    const error = await failure(client.embed(['anything'], { timeoutMs: 30 }));
    expect(error.message).toBe('EMBEDDINGS_URL: no answer within 30 ms');
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('says which address it cannot reach', async () => {
    const closed = await startFakeEmbeddings();
    await closed.close();
    const unreachable = createEmbeddingsClient({ url: closed.url, model: 'm', apiKey: KEY });
    const error = await failure(unreachable.embed(['x']));
    expect(error.message).toContain(
      `EMBEDDINGS_URL: cannot be reached at ${closed.url}/embeddings`,
    );
    expect(error.message).not.toContain(KEY);
  });
});

describe('reciprocal rank fusion', () => {
  it('adds 1 / (60 + rank) over the rankings, so agreement wins', () => {
    const fused = reciprocalRankFusion([
      [1, 2, 3],
      [3, 4],
    ]);
    expect(RRF_K).toBe(60);
    expect(fused.get(1)).toBeCloseTo(1 / 61);
    expect(fused.get(3)).toBeCloseTo(1 / 63 + 1 / 61);
    expect(fused.get(4)).toBeCloseTo(1 / 62);
    const order = [...fused].sort((a, b) => b[1] - a[1]).map(([id]) => id);
    expect(order).toEqual([3, 1, 2, 4]); // 2 and 4 tie at 1/62: the first ranking's order
  });

  it('leaves bm25 rows as they are without nearest chunks, and adds the nearest ones with them', () => {
    const rows = [
      { id: 1, bm25: 5 },
      { id: 2, bm25: 9 },
    ];
    expect(fuseWithNearest(rows, undefined, () => [], 20)).toBe(rows);
    expect(fuseWithNearest(rows, [], () => [], 20)).toBe(rows);
    const fetched: number[][] = [];
    const fused = fuseWithNearest(
      rows,
      [7, 1],
      (ids) => (fetched.push(ids), ids.map((id) => ({ id, bm25: 0 }))),
      2,
    );
    expect(fetched).toEqual([[7]]); // only the rows bm25 did not bring
    // 1: bm25 second, nearest second; 2: bm25 first only; 7: nearest first only (cut at 2).
    expect(fused.map((r) => r.id)).toEqual([1, 2]);
    expect(fused[0]!.bm25).toBeCloseTo(2 / 62);
  });
});

describe('vectors', () => {
  it('are scaled to length 1, and the zero vector is refused', () => {
    expect([...unitVector(Float32Array.from([3, 4]))!]).toEqual([
      expect.closeTo(0.6),
      expect.closeTo(0.8),
    ]);
    expect(unitVector(new Float32Array(4))).toBeUndefined();
  });

  it('are ranked alike by sqlite-vec and by the scan in JavaScript, within the chatbot and sources asked', () => {
    const db = openServiceDb('memory://');
    db.exec(`INSERT INTO chatbots VALUES (1,'b1','o','b1','private',20,240,'m',1,'t','t'),
      (2,'b2','o','b2','private',20,240,'m',1,'t','t')`);
    const addSource = db.prepare<[{ id: number; bot: number }]>(
      `INSERT INTO sources (id, uuid, chatbot_id, title, type, status, file_name, file_size,
         tokens, meta_json, created_at, modified_at)
       VALUES (@id, 's' || @id, @bot, 't', 'upload', 'success', 'f', 0, 0, '{}', 't', 't')`,
    );
    [1, 2, 3].forEach((id) => addSource.run({ id, bot: id === 3 ? 2 : 1 }));
    const addChunk = db.prepare<[{ id: number; source: number; text: string }]>(
      "INSERT INTO chunks (id, source_id, position, headings, text) VALUES (@id, @source, @id, '[]', @text)",
    );
    const random = seededRandom(7);
    const vector = () => Float32Array.from({ length: 24 }, () => random() - 0.5);
    const inSql = new VectorStore(db, 'm');
    const inJs = new VectorStore(db, 'm', { sqliteVec: false });
    expect(inSql.withoutSqliteVec).toBeUndefined(); // sqlite-vec loads on this machine
    const chunks = Array.from({ length: 300 }, (_, i) => ({
      id: i + 1,
      text: `c${i + 1}`,
      section: null,
    }));
    chunks.forEach((chunk, i) => addChunk.run({ ...chunk, source: (i % 3) + 1 }));
    inSql.put(chunks, chunks.map(vector));
    for (let round = 0; round < 5; round++) {
      const question = vector();
      const sql = inSql.nearest(1, question, 10);
      expect(sql).toHaveLength(10);
      expect(inJs.nearest(1, question, 10).map((n) => n.chunkId)).toEqual(
        sql.map((n) => n.chunkId),
      );
      sql.forEach((n, i) =>
        expect(n.similarity).toBeCloseTo(inJs.nearest(1, question, 10)[i]!.similarity, 5),
      );
      // Chatbot 1 holds sources 1 and 2 (chunks 1, 2, 4, 5 …); only source 2 when asked.
      expect(sql.every((n) => n.chunkId % 3 !== 0)).toBe(true);
      const scoped = inSql.nearest(1, question, 10, new Set([2]));
      expect(scoped.every((n) => n.chunkId % 3 === 2)).toBe(true);
      expect(inJs.nearest(1, question, 10, new Set([2]))).toEqual(
        scoped.map((n) => ({ chunkId: n.chunkId, similarity: expect.closeTo(n.similarity, 5) })),
      );
    }
    db.close();
  });
});

describe('the settings', () => {
  it('need a model with an address, for the bridge and for chatbridge service', () => {
    expect(() => loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1' })).toThrow(
      /EMBEDDINGS_MODEL is required when EMBEDDINGS_URL is set/,
    );
    expect(() =>
      serviceOptionsFrom(['--api-key', 'k', '--embeddings-url', 'http://127.0.0.1:1/v1'], {}),
    ).toThrow('--embeddings-model: is required with --embeddings-url');
  });

  it('reach the embedded and the stand-alone service, the key from the environment only', () => {
    const env = {
      EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1',
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_API_KEY: KEY,
      EMBEDDINGS_QUESTION_TIMEOUT_MS: '500',
    };
    expect(loadConfig(env).embeddings).toEqual({
      url: env.EMBEDDINGS_URL,
      model: 'nomic-embed-text',
      apiKey: KEY,
      timeoutMs: undefined,
      questionTimeoutMs: 500,
    });
    expect(loadConfig({}).embeddings).toBeUndefined();
    const options = serviceOptionsFrom(['--api-key', 'k', '--embeddings-timeout-ms', '900'], env);
    expect(options.embeddings).toEqual({
      url: env.EMBEDDINGS_URL,
      model: 'nomic-embed-text',
      apiKey: KEY,
      timeoutMs: 900,
      questionTimeoutMs: 500,
    });
    expect(() =>
      serviceOptionsFrom(['--api-key', 'k', '--embeddings-question-timeout-ms', '0'], {}),
    ).toThrow(/--embeddings-question-timeout-ms: must be a whole number from 10/);
  });
});
