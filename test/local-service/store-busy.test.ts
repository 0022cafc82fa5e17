// Another process holding the store's write lock longer than the busy timeout: the request is
// answered 503 with Retry-After (the client retries it), never a 500.
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
