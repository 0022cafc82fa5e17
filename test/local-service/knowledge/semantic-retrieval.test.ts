// Semantic retrieval on the knowledge index: chunks embedded after they are stored, questions
// at ask time, the nearest chunks fused with bm25's; and every way the endpoint can fail
// leaving the words search as it was. Against the loopback fake (fake-embeddings.ts).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openServiceDb, type ServiceDb } from '../../../src/local-service/db/open.js';
import { createEmbeddingsClient } from '../../../src/local-service/knowledge/embeddings.js';
import { createKnowledgeIndex } from '../../../src/local-service/knowledge/search-index.js';
import { SemanticIndex } from '../../../src/local-service/knowledge/semantic-index.js';
import type { KnowledgeIndex, SourceText } from '../../../src/local-service/knowledge/types.js';
import { Repository } from '../../../src/local-service/repository.js';
import type { Logger } from '../../../src/log.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './fake-embeddings.js';

const BOT = 'bot-semantic';
const KEY = 'sk-semantic-key-777';
const AT = new Date(0).toISOString();

const CAR_MANUAL: Record<string, string> = {
  brakes: '# Brakes\n\nTo stop the car, press the brake pedal firmly with your right foot.',
  radio: '# Radio\n\nThe radio plays music while the ignition is on.',
  wipers: '# Wipers\n\nThe wipers clear rain from the windscreen; pull the lever once.',
  tyres: '# Tyres\n\nCheck the tyre pressure every month, cold, with a gauge.',
};
/** Shares no word with the brakes section: bm25 cannot find it; a model can. */
const PARAPHRASE = 'How can I halt my automobile?';

let fake: FakeEmbeddings;
beforeAll(async () => {
  fake = await startFakeEmbeddings();
});
afterAll(() => fake.close());

interface World {
  db: ServiceDb;
  semantic: SemanticIndex;
  index: KnowledgeIndex;
  plain: KnowledgeIndex;
  warnings: { msg: string; reason?: string }[];
  add(uuid: string, text: string): Promise<void>;
  sourceId(uuid: string): number;
}

let world: World;

/** Whether vectors are compared by sqlite-vec (in SQL) or in JavaScript: both are tested. */
let sqliteVec = true;

function createWorld(questionTimeoutMs = 1_000): World {
  const db = openServiceDb('memory://');
  const repo = new Repository(db);
  void repo.createChatbot({
    owner: 'test',
    uuid: BOT,
    name: BOT,
    created_at: AT,
    modified_at: AT,
    meta: {
      visibility: 'private',
      rate_limit: [20, 240],
      rate_limit_message: 'slow',
      show_citations: true,
    },
  });
  const warnings: World['warnings'] = [];
  const logger = {
    warn: (fields: { reason?: string }, msg: string) => warnings.push({ msg, ...fields }),
  } as unknown as Logger;
  const client = createEmbeddingsClient({ url: fake.url, model: 'fake-embed', apiKey: KEY });
  const semantic = new SemanticIndex(db, client, {
    logger,
    questionTimeoutMs,
    now: () => 1000,
    sqliteVec,
  });
  expect(semantic.store.withoutSqliteVec).toBe(sqliteVec ? undefined : 'turned off');
  const index = createKnowledgeIndex(db, semantic);
  return {
    db,
    semantic,
    index,
    plain: createKnowledgeIndex(db),
    warnings,
    async add(uuid, text) {
      repo.sources.createPending({
        owner: 'test',
        chatbotUuid: BOT,
        uuid,
        title: uuid,
        type: 'upload',
        status: 'success',
        file_name: `${uuid}.md`,
        file_size: text.length,
        tokens: 0,
        meta_json: '{}',
        created_at: AT,
        modified_at: AT,
      });
      const source: SourceText = {
        uuid,
        chatbotUuid: BOT,
        title: uuid,
        type: 'upload',
        fileName: `${uuid}.md`,
        text,
      };
      await index.add(source);
    },
    sourceId: (uuid) =>
      db.prepare<[string], { id: number }>('SELECT id FROM sources WHERE uuid = ?').get(uuid)!.id,
  };
}

async function addManual(): Promise<void> {
  for (const [uuid, text] of Object.entries(CAR_MANUAL)) await world.add(uuid, text);
  await world.semantic.settled();
}

const vectorCount = () =>
  world.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunk_vectors').get()!.n;

beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
  world = createWorld();
});
afterEach(async () => {
  await world.semantic.close();
  world.db.close();
});

describe.each([
  ['sqlite-vec', true],
  ['JavaScript', false],
])('semantic retrieval, vectors compared in %s', (_name, inSql) => {
  beforeAll(() => {
    sqliteVec = inSql;
  });

  it('finds a paraphrase that bm25 misses', async () => {
    await addManual();
    expect(vectorCount()).toBe(4);
    const words = await world.plain.search(BOT, PARAPHRASE);
    expect(words.map((p) => p.sourceUuid)).not.toContain('brakes');
    const fused = await world.index.search(BOT, PARAPHRASE);
    expect(fused[0]?.sourceUuid).toBe('brakes');
    // What bm25 finds, it still finds first.
    const direct = await world.index.search(BOT, 'how often should tyre pressure be checked?');
    expect(direct[0]?.sourceUuid).toBe('tyres');
  });

  it('embeds a question once for the searches of one message (one per agent)', async () => {
    await addManual();
    const asked = fake.requests.length;
    const [all, some] = await Promise.all([
      world.index.search(BOT, PARAPHRASE),
      world.index.search(BOT, PARAPHRASE, { sourceUuids: ['radio'] }),
    ]);
    expect(fake.requests.length).toBe(asked + 1);
    expect(all[0]?.sourceUuid).toBe('brakes');
    expect(some.map((p) => p.sourceUuid)).toEqual(['radio']);
    await world.index.search(BOT, PARAPHRASE); // a later message asks again
    expect(fake.requests.length).toBe(asked + 2);
  });

  it('searches only the sources asked for', async () => {
    await addManual();
    const scoped = await world.index.search(BOT, PARAPHRASE, { sourceUuids: ['radio', 'tyres'] });
    expect(scoped.map((p) => p.sourceUuid)).not.toContain('brakes');
    const allowed = await world.index.search(BOT, PARAPHRASE, { sourceUuids: ['radio', 'brakes'] });
    expect(allowed[0]?.sourceUuid).toBe('brakes');
  });

  it('embeds each source after it is stored, and again when its text changes', async () => {
    await addManual();
    const before = fake.requests.length;
    await world.index.add({
      uuid: 'brakes',
      chatbotUuid: BOT,
      title: 'brakes',
      type: 'upload',
      fileName: 'brakes.md',
      text: '# Brakes\n\nThe handbrake holds the car when parked.',
    });
    await world.semantic.settled();
    expect(fake.requests.slice(before).flatMap((r) => r.inputs)).toEqual([
      'Brakes\n\nThe handbrake holds the car when parked.',
    ]);
    expect(vectorCount()).toBe(4); // the old chunk's vector went with it
  });

  it('keeps a source searchable by its words when the endpoint is down, records why, and embeds it later', async () => {
    fake.mode = 'down';
    await addManual();
    const brakes = world.sourceId('brakes');
    expect(vectorCount()).toBe(0);
    expect(world.semantic.store.errorOf(brakes)).toMatch(/^EMBEDDINGS_URL: answered HTTP 500/);
    expect(world.semantic.store.errorOf(brakes)).not.toContain(KEY);
    expect(world.warnings.some((w) => w.msg.startsWith('embedding a data source failed'))).toBe(
      true,
    );
    expect(JSON.stringify(world.warnings)).not.toContain(KEY);
    // The words search is untouched.
    const found = await world.index.search(BOT, 'which pedal stops the car?');
    expect(found[0]?.sourceUuid).toBe('brakes');

    fake.mode = 'ok';
    world.semantic.retryFailed();
    await world.semantic.settled();
    expect(vectorCount()).toBe(4);
    expect(world.semantic.store.errorOf(brakes)).toBeUndefined();
    expect((await world.index.search(BOT, PARAPHRASE))[0]?.sourceUuid).toBe('brakes');
  });

  it('embeds at start what was stored while embeddings were off', async () => {
    await world.semantic.close(); // as if the service ran without EMBEDDINGS_URL
    for (const [uuid, text] of Object.entries(CAR_MANUAL)) await world.add(uuid, text);
    expect(vectorCount()).toBe(0);
    const next = new SemanticIndex(
      world.db,
      createEmbeddingsClient({ url: fake.url, model: 'fake-embed' }),
    );
    next.start();
    await next.settled();
    expect(vectorCount()).toBe(4);
    await next.close();
  });

  it.each(['down', 'not-json', 'silent', 'other-dimensions'] as const)(
    'answers from bm25 alone when the question cannot be embedded (%s)',
    async (mode) => {
      await world.semantic.close();
      world.db.close();
      // A silent endpoint is answered by the question's bound alone, twice: a short one. The
      // others fail at once, well within 200 ms on a loaded machine.
      world = createWorld(mode === 'silent' ? 25 : 200);
      await addManual();
      fake.mode = mode;
      const found = await world.index.search(BOT, 'which pedal stops the car?');
      expect(found[0]?.sourceUuid).toBe('brakes');
      expect(world.semantic.questionFailures.count).toBe(1);
      expect(world.semantic.questionFailures.last).toMatch(/^EMBEDDINGS_URL: /);
      expect(world.warnings.at(-1)?.msg).toBe(
        'embedding the question failed: it is answered from bm25 alone',
      );
      // And the paraphrase is simply not found, as without embeddings.
      const lost = await world.index.search(BOT, PARAPHRASE);
      expect(lost.map((p) => p.sourceUuid)).not.toContain('brakes');
    },
  );

  it('records vectors of another size than the stored ones as an error, storing none', async () => {
    await world.add('brakes', CAR_MANUAL.brakes!);
    await world.semantic.settled();
    fake.mode = 'other-dimensions';
    await world.add('radio', CAR_MANUAL.radio!);
    await world.semantic.settled();
    expect(vectorCount()).toBe(1);
    expect(world.semantic.store.errorOf(world.sourceId('radio'))).toBe(
      'EMBEDDINGS_URL: vectors of 65 dimensions; the stored ones have 64 (for another model, set EMBEDDINGS_MODEL to its name)',
    );
  });

  it('embeds every chunk again for a new model', async () => {
    await addManual();
    expect(vectorCount()).toBe(4);
    await world.semantic.close();
    const other = new SemanticIndex(
      world.db,
      createEmbeddingsClient({ url: fake.url, model: 'other-embed' }),
    );
    expect(vectorCount()).toBe(0);
    other.start();
    await other.settled();
    expect(vectorCount()).toBe(4);
    expect(fake.requests.at(-1)?.model).toBe('other-embed');
    await other.close();
  });

  it('asks nothing of the endpoint for a chatbot with no vectors, or an empty question', async () => {
    fake.mode = 'down';
    await world.add('radio', CAR_MANUAL.radio!);
    await world.semantic.settled();
    const asked = fake.requests.length;
    await world.index.search(BOT, 'radio music');
    await world.index.search(BOT, '   ');
    expect(fake.requests.length).toBe(asked);
    expect(world.semantic.questionFailures.count).toBe(0);
  });
});
