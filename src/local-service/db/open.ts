// Opening the local service's SQLite database: memory:// (nothing kept) or sqlite://path.
//
// Several processes may share one file: WAL lets readers and one writer work at once, the
// busy timeout makes a writer wait for another's transaction instead of failing, and every
// change that touches several rows is one transaction (see repository.ts). The schema is
// migrated at start, in one IMMEDIATE transaction, so two processes starting together do not
// both migrate. A file written by the key-value layout of earlier versions is refused before
// anything is written to it.
import { CodedError, ErrorCode, type CodedErrorOptions } from '../../errors.js';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { inTransaction, openDatabase, type Database } from '../../sqlite.js';
import { MIGRATIONS } from './schema.js';

export type ServiceDb = Database;

/** How long a writer waits for another process's transaction before giving up. */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Pages written to the WAL before they are copied into the file: about 40 MB (SQLite's default
 * is 1,000, 4 MB). Each copy syncs the WAL and the file twice, and ingesting a source rewrites
 * FTS5's pages many times over; copied less often, a page is copied once for many rewrites
 * (ingest about 10% faster, the final copy included). The WAL file stays about this size.
 */
const WAL_CHECKPOINT_PAGES = 10_000;

export interface ServiceDbLocation {
  /** A file path, or ':memory:'. */
  path: string;
  /** The URL as shown in logs and errors. */
  display: string;
}

/** Reads `memory://` or `sqlite://path`; anything else is refused with the rule. */
export function serviceDbLocation(url: string): ServiceDbLocation {
  const trimmed = url.trim();
  if (/^memory:\/\/$/i.test(trimmed)) return { path: ':memory:', display: 'memory://' };
  const sqlite = /^sqlite:\/\/(.*)$/i.exec(trimmed);
  if (sqlite) {
    const rest = sqlite[1]!;
    if (rest === '' || rest === ':memory:') return { path: ':memory:', display: 'memory://' };
    const path = resolve(rest);
    return { path, display: `sqlite://${path}` };
  }
  if (/^rediss?:\/\//i.test(trimmed)) {
    throw new Error(
      `store URL "${trimmed.replace(/\/\/[^@/]*@/, '//***@')}": the local service keeps its data ` +
        'in SQLite (sqlite://path, shared safely by several processes on one machine) or ' +
        'memory://; Redis is no longer supported for it (the bridge state may still use Redis)',
    );
  }
  throw new Error(`store URL "${trimmed}": must be sqlite://path or memory://`);
}

/** Thrown when a store file cannot be used; the message names the file and what to do. */
export class StoreFileError extends CodedError {
  constructor(message: string, options: CodedErrorOptions = {}) {
    super(ErrorCode.StoreFileUnusable, message, options);
    this.name = 'StoreFileError';
  }
}

/** Creates the file's folder; a folder in place of the file, or a file in place of a folder, is named. */
function preparePath(path: string): void {
  // SQLite would only say "disk I/O error" or "unable to open database file".
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw new StoreFileError(`store file ${path} is a folder, not a file: name a file in it`);
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new StoreFileError(
      `store file ${path}: its folder ${dirname(path)} cannot be created: ${(error as Error).message}`,
    );
  }
}

/** Refuses a file that holds the local service's data in the old key-value layout. */
function refuseLegacyLayout(path: string): void {
  if (!existsSync(path) || statSync(path).size === 0) return;
  let probe: ServiceDb;
  try {
    probe = openDatabase(path, { readOnly: true, timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    throw new StoreFileError(`store file ${path}: cannot be opened: ${(error as Error).message}`);
  }
  try {
    const has = (name: string) =>
      probe.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
      undefined;
    if (has('chatbots') || !has('keyv')) return;
    const legacy = probe.prepare("SELECT 1 FROM keyv WHERE key LIKE 'ls-%' LIMIT 1").get();
    if (legacy === undefined) return;
    throw new StoreFileError(
      `store file ${path} was written by an earlier chatbridge (a key-value layout this version ` +
        'no longer reads). Nothing was changed in it. Move it aside (for example ' +
        `mv "${path}" "${path}.old") and start again: a new store is created, and the chatbots ` +
        'and data sources are added again (chatbridge admin, or the embedded demo at start).',
    );
  } catch (error) {
    if (error instanceof StoreFileError) throw error;
    throw new StoreFileError(`store file ${path}: cannot be read: ${(error as Error).message}`);
  } finally {
    probe.close();
  }
}

function migrate(db: ServiceDb, display: string): void {
  const version = () =>
    db.prepare<[], { user_version: number }>('PRAGMA user_version').get()!.user_version;
  if (version() > MIGRATIONS.length) {
    throw new StoreFileError(
      `store ${display} has schema version ${version()}, newer than this chatbridge knows ` +
        `(${MIGRATIONS.length}): upgrade chatbridge, or use another store`,
    );
  }
  if (version() === MIGRATIONS.length) return;
  inTransaction(db, () => {
    // Read again inside the transaction: another process may have migrated meanwhile.
    for (let next = version(); next < MIGRATIONS.length; next++) {
      db.exec(MIGRATIONS[next]!);
      db.exec(`PRAGMA user_version = ${next + 1}`);
    }
  });
}

/** Opens (creating when needed) and migrates the database named by a store URL. */
export function openServiceDb(url: string): ServiceDb {
  const { path, display } = serviceDbLocation(url);
  if (path !== ':memory:') {
    preparePath(path);
    refuseLegacyLayout(path);
  }
  let db: ServiceDb;
  try {
    // allowExtension: sqlite-vec is loaded when embeddings are on (knowledge/vector-store.ts).
    db = openDatabase(path, { timeout: BUSY_TIMEOUT_MS, allowExtension: true });
  } catch (error) {
    throw new StoreFileError(`store ${display}: cannot be opened: ${(error as Error).message}`);
  }
  try {
    if (path !== ':memory:') {
      db.exec('PRAGMA journal_mode = WAL');
      // In WAL mode a commit is on disk for every crash but a power cut.
      db.exec('PRAGMA synchronous = NORMAL');
      // Copy the WAL into the file every WAL_CHECKPOINT_PAGES, not SQLite's 1,000 (see there).
      db.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    }
    db.exec('PRAGMA foreign_keys = ON');
    // 32 MB of page cache (default 2 MB): FTS5 merges its segments through it while ingesting.
    db.exec('PRAGMA cache_size = -32768');
    migrate(db, display);
  } catch (error) {
    db.close();
    if (error instanceof StoreFileError) throw error;
    throw new StoreFileError(`store ${display}: cannot be used: ${(error as Error).message}`);
  }
  return db;
}
