// keyv's store for sqlite:// URLs, on the SQLite binding the local service uses (src/sqlite.ts),
// so the project has one SQLite module instead of two. It keeps the table
// @keyv/sqlite wrote — `keyv(key VARCHAR(255) PRIMARY KEY, value TEXT)`, keys
// "namespace:key", values keyv's serialized JSON — so state files written before read as they
// were. keyv itself does namespacing, serializing and expiry (ttlSupport false, as before).
import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { openDatabase, type Database } from '../sqlite.js';

/**
 * Opens the file and its table. One connection serves every namespace's adapter; whoever
 * opened it closes it (the adapters' disconnect leaves it open).
 */
export function openSqliteFile(path: string, busyTimeoutMs: number): Database {
  const db = openDatabase(path, { timeout: busyTimeoutMs });
  try {
    // Write-ahead log: a commit appends to the log and syncs it once, where the rollback
    // journal was written, synced and deleted around every write (a keyv set took 1.2 ms, now
    // 0.34 ms). synchronous FULL keeps each acknowledged write, an intake entry among them,
    // through a power cut. The mode stays with the file; an earlier file is switched on open.
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    db.exec('CREATE TABLE IF NOT EXISTS keyv(key VARCHAR(255) PRIMARY KEY, value TEXT )');
  } catch (error) {
    db.close(); // a file that is no database: the caller never gets the connection to close
    throw error;
  }
  return db;
}

type Row = { key: string; value: string };

export class KeyvSqlite extends EventEmitter implements KeyvStoreAdapter {
  // keyv reads opts.dialect to know the store can be iterated.
  opts = { dialect: 'sqlite', url: 'sqlite://' };
  namespace?: string | undefined;
  readonly ttlSupport = false;
  private readonly statements;

  constructor(db: Database) {
    super();
    this.statements = {
      get: db.prepare<[string], Row>('SELECT key, value FROM keyv WHERE key = ?'),
      getMany: db.prepare<[string], Row>(
        'SELECT key, value FROM keyv WHERE key IN (SELECT value FROM json_each(?))',
      ),
      set: db.prepare<[string, string]>(
        'INSERT INTO keyv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      delete: db.prepare<[string]>('DELETE FROM keyv WHERE key = ?'),
      deleteMany: db.prepare<[string]>(
        'DELETE FROM keyv WHERE key IN (SELECT value FROM json_each(?))',
      ),
      // substr, not LIKE: "_" and "%" in a namespace are not wildcards.
      clear: db.prepare<[string, string]>('DELETE FROM keyv WHERE substr(key, 1, length(?)) = ?'),
      clearAll: db.prepare('DELETE FROM keyv'),
      scan: db.prepare<[string, string, string, number], Row>(
        'SELECT key, value FROM keyv WHERE substr(key, 1, length(?)) = ? AND key > ? ORDER BY key LIMIT ?',
      ),
    };
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.statements.get.get(key)?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    const rows = new Map(
      this.statements.getMany.all(JSON.stringify(keys)).map((row) => [row.key, row.value]),
    );
    return keys.map((key) => rows.get(key) as StoredData<Value | undefined>);
  }

  async set(key: string, value: unknown): Promise<void> {
    this.statements.set.run(key, value as string);
  }

  async delete(key: string): Promise<boolean> {
    return this.statements.delete.run(key).changes > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return this.statements.deleteMany.run(JSON.stringify(keys)).changes > 0;
  }

  async has(key: string): Promise<boolean> {
    return this.statements.get.get(key) !== undefined;
  }

  async clear(): Promise<void> {
    if (this.namespace) this.statements.clear.run(`${this.namespace}:`, `${this.namespace}:`);
    else this.statements.clearAll.run();
  }

  /** The namespace's rows in key order, read in pages so writes between pages are safe. */
  async *iterator(namespace?: string): AsyncGenerator<[string, string]> {
    const prefix = namespace ? `${namespace}:` : '';
    let after = '';
    for (;;) {
      const rows = this.statements.scan.all(prefix, prefix, after, 100);
      for (const row of rows) yield [row.key, row.value];
      if (rows.length < 100) return;
      after = rows[rows.length - 1]!.key;
    }
  }

  async disconnect(): Promise<void> {}
}
