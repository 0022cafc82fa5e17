// Opening the local service's SQLite file: schema versions, the key-value layout of earlier
// versions refused untouched, and store URLs it does not take.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceDb } from '../../src/local-service/db/open.js';
import { MIGRATIONS } from '../../src/local-service/db/schema.js';
import { startLocalService } from '../../src/local-service/index.js';
import { openDatabase, type Database } from '../../src/sqlite.js';
import { openKeyvStore } from '../../src/state/keyv.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatbridge-store-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A pragma's value, as better-sqlite3's pragma(name, { simple: true }) read it. */
const pragma = (db: Database, name: string) =>
  Object.values(db.prepare<[], Record<string, unknown>>(`PRAGMA ${name}`).get()!)[0];
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('the store file', () => {
  it('is created at the latest schema version, in WAL mode with foreign keys on', () => {
    const path = join(dir, 'fresh.sqlite');
    const db = openServiceDb(`sqlite://${path}`);
    expect(pragma(db, 'user_version')).toBe(MIGRATIONS.length);
    expect(pragma(db, 'journal_mode')).toBe('wal');
    expect(pragma(db, 'foreign_keys')).toBe(1);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => (row as { name: string }).name);
    expect(tables).toEqual(
      expect.arrayContaining(['chatbots', 'agents', 'sources', 'chunks', 'chunks_fts', 'messages']),
    );
    expect(() =>
      db
        .prepare(
          "INSERT INTO agents (uuid, chatbot_id, name, description, prompt, type, enabled, meta_json, tool_functions_json, variables_json, created_at, modified_at) VALUES ('a', 999, '', '', '', 'user-facing', 1, '{}', '[]', '[]', '', '')",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    db.close();
    const again = openServiceDb(`sqlite://${path}`); // nothing left to migrate
    expect(pragma(again, 'user_version')).toBe(MIGRATIONS.length);
    again.close();
  });

  it('refuses a file from a newer chatbridge, naming the versions', () => {
    const path = join(dir, 'newer.sqlite');
    const raw = openDatabase(path);
    raw.exec('PRAGMA user_version = 99');
    raw.close();
    expect(() => openServiceDb(`sqlite://${path}`)).toThrow(
      new RegExp(`schema version 99, newer than this chatbridge knows \\(${MIGRATIONS.length}\\)`),
    );
  });

  it('refuses the key-value layout of earlier versions, naming the file, and changes nothing', async () => {
    const path = join(dir, 'legacy.sqlite');
    const legacy = await openKeyvStore(`sqlite://${path}`);
    await legacy.namespace('ls-chatbots').set('c1', { uuid: 'c1', name: 'Old' });
    await legacy.close();
    const before = digest(path);
    await expect(
      startLocalService({ apiKeys: ['k-legacy-01'], storeUrl: `sqlite://${path}` }),
    ).rejects.toThrow(
      new RegExp(
        `store file ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was written by an earlier chatbridge.*Move it aside`,
      ),
    );
    expect(digest(path)).toBe(before);
  });

  it('takes the bridge state of the same file (keyv without the service keys) as a new store', async () => {
    const path = join(dir, 'bridge-state.sqlite');
    const state = await openKeyvStore(`sqlite://${path}`);
    await state.namespace('sessions').set('slack:T:C:1', 'session-1');
    await state.close();
    const db = openServiceDb(`sqlite://${path}`);
    expect(pragma(db, 'user_version')).toBe(MIGRATIONS.length);
    db.close();
  });

  it('refuses a file that is no SQLite database, naming it, and leaves it unchanged', async () => {
    const path = join(dir, 'garbage.sqlite');
    await writeFile(path, 'this is no SQLite database. '.repeat(40));
    const before = digest(path);
    expect(() => openServiceDb(`sqlite://${path}`)).toThrow(
      new RegExp(`store file ${escaped(path)}: cannot be read: file is not a database`),
    );
    expect(digest(path)).toBe(before);
  });

  it('refuses a path that is a folder, saying so and naming it', async () => {
    const path = join(dir, 'a-folder');
    await mkdir(path);
    expect(() => openServiceDb(`sqlite://${path}`)).toThrow(
      new RegExp(`store file ${escaped(path)} is a folder, not a file`),
    );
  });

  it('refuses a path under a file, naming the folder it cannot create', async () => {
    const file = join(dir, 'plain-file');
    await writeFile(file, 'not a folder');
    const path = join(file, 'store.sqlite');
    expect(() => openServiceDb(`sqlite://${path}`)).toThrow(
      new RegExp(`store file ${escaped(path)}: its folder ${escaped(file)} cannot be created`),
    );
  });

  it.each([
    ['redis://127.0.0.1:6379', /Redis is no longer supported for it/],
    ['postgres://db/x', /must be sqlite:\/\/path or memory:\/\//],
  ])('refuses the store URL %s, saying what it takes', async (storeUrl, rule) => {
    await expect(startLocalService({ apiKeys: ['k-url-01'], storeUrl })).rejects.toThrow(rule);
  });
});
