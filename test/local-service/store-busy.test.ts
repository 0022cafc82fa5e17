// Another process holding the store's write lock longer than the busy timeout: the request is
// answered 503 with Retry-After (the client retries it), never a 500. Also two processes adding
// the same source at once, and a full disk: a clear refusal, nothing half-written.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUSY_TIMEOUT_MS, openServiceDb } from '../../src/local-service/db/open.js';
import { toErrorResponse } from '../../src/local-service/http-errors.js';
import { Ingestor } from '../../src/local-service/ingest.js';
import type { KnowledgePort } from '../../src/local-service/knowledge-port.js';
import type { SourceRecord } from '../../src/local-service/records.js';
import { Repository } from '../../src/local-service/repository.js';
import { DuplicateSourceError } from '../../src/local-service/sources.js';
import { silentLogger } from '../../src/log.js';
import { isSqliteError, openDatabase, SqliteCode } from '../../src/sqlite.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatbridge-busy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LIMITS = { bodyLimit: 1024, maxUploadBytes: 1024 };

/** The store, and another connection (another process) holding its write lock. */
async function busyStore(name: string) {
  const path = join(dir, name);
  const db = openServiceDb(`sqlite://${path}`);
  const at = new Date(0).toISOString();
  const repo = new Repository(db);
  await repo.createChatbot({
    owner: 'test',
    uuid: 'bot',
    name: 'Busy',
    created_at: at,
    modified_at: at,
    meta: {
      visibility: 'private',
      rate_limit: [20, 240],
      rate_limit_message: 's',
      show_citations: true,
    },
  });
  db.exec('PRAGMA busy_timeout = 0'); // the 10 s wait, run out at once
  const other = openDatabase(path);
  other.exec('BEGIN IMMEDIATE');
  return { db, repo, other };
}

describe('a store busy with another process’s write', () => {
  it('answers 503 with Retry-After when a write cannot get the lock', async () => {
    const { db, repo, other } = await busyStore('busy-any.sqlite');
    const failure = await repo
      .createSession({
        chatbotUuid: 'bot',
        owner: 'test',
        uuid: 's',
        created_at: '',
        modified_at: '',
      })
      .catch((error: unknown) => error);
    expect(isSqliteError(failure, SqliteCode.BUSY)).toBe(true);
    expect((failure as Error).message).toMatch(/database is locked/);
    const response = toErrorResponse(failure, LIMITS);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body).toEqual({
      error: { code: 'store_busy', message: expect.stringMatching(/busy.*try again/) },
    });
    other.exec('ROLLBACK');
    other.close();
    db.close();
  });

  it('waits its busy timeout for the lock before answering 503', async () => {
    const { db, repo, other } = await busyStore('busy-wait.sqlite');
    db.exec('PRAGMA busy_timeout = 50'); // BUSY_TIMEOUT_MS, shortened
    const ingestor = new Ingestor(repo, {} as KnowledgePort, Date.now, silentLogger);
    const started = performance.now();
    const failure = await ingestor.addQa('test', 'bot', 'When?', 'Now.').catch((e: unknown) => e);
    // SQLite's busy handler sleeps at least the timeout in all before it gives up.
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(toErrorResponse(failure, LIMITS).status).toBe(503);
    expect(db.isTransaction).toBe(false);
    other.exec('ROLLBACK');
    other.close();
    db.close();
  });

  it('answers 503 (not 500 index_failed) to a Q&A pair that cannot be stored yet', async () => {
    const { db, repo, other } = await busyStore('busy-qa.sqlite');
    const ingestor = new Ingestor(repo, {} as KnowledgePort, Date.now, silentLogger);
    const failure = await ingestor.addQa('test', 'bot', 'When?', 'Now.').catch((e: unknown) => e);
    expect(toErrorResponse(failure, LIMITS).status).toBe(503);
    other.exec('ROLLBACK');
    // Once the lock is free, the same pair is stored.
    expect((await ingestor.addQa('test', 'bot', 'When?', 'Now.')).status).toBe('success');
    other.close();
    db.close();
  });
});

describe('two processes on one store file', () => {
  it('each wait BUSY_TIMEOUT_MS for the other’s write lock (node:sqlite waits 0 ms unless told)', () => {
    const db = openServiceDb(`sqlite://${join(dir, 'wait.sqlite')}`);
    expect(db.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: BUSY_TIMEOUT_MS });
    db.close();
  });

  it('adding the same URL at once: the later insert names the source the other stored (the ingest answers 409 with it)', async () => {
    const { db, repo, other } = await busyStore('same-url.sqlite');
    other.exec('ROLLBACK');
    other.close();
    // The other process: its own connection, its check for the URL passed before this one's.
    const elsewhere = openServiceDb(`sqlite://${join(dir, 'same-url.sqlite')}`);
    const url = 'https://example.org/page';
    const pending = (uuid: string): SourceRecord => ({
      owner: 'test',
      chatbotUuid: 'bot',
      uuid,
      title: url,
      type: 'url',
      status: 'await',
      file_name: url,
      file_size: 0,
      tokens: 0,
      meta_json: '{}',
      url,
      link: url,
      created_at: '',
      modified_at: '',
    });
    new Repository(elsewhere).sources.createPending(pending('first'));
    const failure = (() => {
      try {
        repo.sources.createPending(pending('second'));
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(DuplicateSourceError);
    expect((failure as DuplicateSourceError).existing.uuid).toBe('first');
    expect(db.isTransaction).toBe(false);
    elsewhere.close();
    db.close();
  });
});

describe('a full disk', () => {
  it('refuses the Q&A pair (index_failed), writes none of it, and takes the next once there is room', async () => {
    const { db, repo, other } = await busyStore('full.sqlite');
    other.exec('ROLLBACK');
    other.close();
    db.exec('PRAGMA busy_timeout = 10000');
    // The file may grow two pages: SQLite answers SQLITE_FULL, as on a full disk.
    const { page_count: pages } = db
      .prepare<[], { page_count: number }>('PRAGMA page_count')
      .get()!;
    db.exec(`PRAGMA max_page_count = ${pages + 2}`);
    const ingestor = new Ingestor(repo, {} as KnowledgePort, Date.now, silentLogger);
    const failure = await ingestor
      .addQa('test', 'bot', 'What is long?', 'word '.repeat(20_000))
      .catch((e: unknown) => e);
    expect(toErrorResponse(failure, LIMITS)).toMatchObject({
      status: 500,
      body: { error: { code: 'index_failed' } },
    });
    expect(db.isTransaction).toBe(false);
    expect(await repo.listSources('bot')).toEqual([]);
    db.exec('PRAGMA max_page_count = 1073741823');
    expect((await ingestor.addQa('test', 'bot', 'When?', 'Now.')).status).toBe('success');
    expect(await repo.listSources('bot')).toHaveLength(1);
    db.close();
  });
});
