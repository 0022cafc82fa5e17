// The one SQLite binding, for the local service's store and the state's sqlite:// store. Every
// import of it goes through this file.
//
// @photostructure/sqlite is node:sqlite's API (`DatabaseSync`, `StatementSync`) for Node 20 and
// up, with its binaries prebuilt inside the npm tarball (glibc and musl Linux, macOS, Windows):
// nothing is compiled at install and nothing is fetched from GitHub, where better-sqlite3 built
// SQLite from source on every machine that could not download its binaries (most of an
// install's time). On Node >= 22.16 (`isTransaction`, used below) node:sqlite itself has the
// same API: changing the import here is the whole move.
//
// Beside the re-export, only what node:sqlite leaves out: one transaction helper, reading SQLite's
// result code off a thrown error, and prepare() typed by its parameters and row (type-only; the
// statement is node:sqlite's).
import {
  DatabaseSync,
  type DatabaseSyncInstance,
  type DatabaseSyncOptions,
  StatementSync,
  type StatementSyncInstance,
} from '@photostructure/sqlite';

export { DatabaseSync, StatementSync };
export type { DatabaseSyncInstance, DatabaseSyncOptions, StatementSyncInstance };

/** A prepared statement, typed by what it binds and the row it reads (objects, null prototype). */
export interface Statement<Params extends unknown[] = unknown[], Row = unknown> {
  run(...params: Params): { changes: number; lastInsertRowid: number | bigint };
  get(...params: Params): Row | undefined;
  all(...params: Params): Row[];
  iterate(...params: Params): IterableIterator<Row>;
}

/** A connection whose prepare() takes the row's type: `db.prepare<[string], Row>(sql)`. */
export interface Database extends Omit<DatabaseSyncInstance, 'prepare'> {
  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): Statement<Params, Row>;
}

/**
 * Opens a connection. node:sqlite waits 0 ms for another connection's lock unless `timeout` is
 * given (better-sqlite3 waited 5 s): callers that share a file pass theirs. Keys of a named
 * parameters' object that the statement does not name are ignored, as better-sqlite3 did
 * (records are bound whole: `run({ ...record, id })`).
 */
export function openDatabase(path: string, options: DatabaseSyncOptions = {}): Database {
  return new DatabaseSync(path, {
    allowUnknownNamedParameters: true,
    ...options,
  }) as unknown as Database;
}

/** A value SQLite binds. */
export type SqlValue = string | number | bigint | null | Uint8Array;

type Digit = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
/** Whether C is a character of a name: a letter (it has two cases), a digit or "_". */
type IsNameChar<C extends string> = C extends Digit | '_'
  ? true
  : Uppercase<C> extends Lowercase<C>
    ? false
    : true;
/** The name at the start of a text: its word characters. */
type NameAt<S extends string, Name extends string = ''> = S extends `${infer C}${infer Rest}`
  ? IsNameChar<C> extends true
    ? NameAt<Rest, `${Name}${C}`>
    : Name
  : Name;
/** The `@name`s of an SQL text known to the compiler (a literal), as a union. */
export type ParameterNames<Sql extends string> = string extends Sql
  ? string
  : Sql extends `${string}@${infer Rest}`
    ? NameAt<Rest> | ParameterNames<Rest>
    : never;

const NAMED_PARAMETER = /@(\w+)/g;

/**
 * A statement with named parameters (`@name`), typed by the names its SQL holds. node:sqlite
 * binds a name the object leaves out as NULL, so a field renamed on one side would write NULL
 * without a word; here every name must be given, or the call throws naming it.
 */
export function prepareNamed<Sql extends string, Row = unknown>(
  db: Database,
  sql: Sql,
): Statement<[Record<ParameterNames<Sql>, SqlValue>], Row> {
  const statement = db.prepare<[Record<string, SqlValue>], Row>(sql);
  const names = [...new Set(Array.from(sql.matchAll(NAMED_PARAMETER), (match) => match[1]!))];
  const given = (params: Record<string, SqlValue>) => {
    const missing = names.find((name) => params[name] === undefined);
    if (missing !== undefined) {
      const what = sql.trim().split(/\s+/).slice(0, 3).join(' ');
      throw new TypeError(`SQL parameter @${missing} was not given (${what} …)`);
    }
    return params;
  };
  return {
    run: (params) => statement.run(given(params)),
    get: (params) => statement.get(given(params)),
    all: (params) => statement.all(given(params)),
    iterate: (params) => statement.iterate(given(params)),
  };
}

/**
 * Runs fn in one IMMEDIATE transaction: committed when it returns, rolled back when it throws.
 * IMMEDIATE takes the write lock at once, so a read-then-write never fails halfway on another
 * process's write. Called inside another transaction, fn runs in a savepoint of it (rolled
 * back alone on a throw), as better-sqlite3's transactions nested. fn must be synchronous: a
 * promise would commit before its work.
 */
export function inTransaction<T>(db: Database, fn: () => T): T {
  const nested = db.isTransaction;
  db.exec(nested ? 'SAVEPOINT nested' : 'BEGIN IMMEDIATE');
  try {
    const result = fn();
    if (result instanceof Promise) throw new TypeError('a transaction cannot run async work');
    db.exec(nested ? 'RELEASE nested' : 'COMMIT');
    return result;
  } catch (error) {
    // A failed COMMIT (busy) leaves the transaction open; some failures end it (then nothing
    // is left to roll back, and the error that ended it is the one to throw).
    if (db.isTransaction) db.exec(nested ? 'ROLLBACK TO nested; RELEASE nested' : 'ROLLBACK');
    throw error;
  }
}

/** SQLite result codes this project tells apart (https://sqlite.org/rescode.html). */
export const SqliteCode = { BUSY: 5, CONSTRAINT_UNIQUE: 2067 } as const;

/**
 * Whether node:sqlite threw this error for that result code. Its `errcode` is SQLite's extended
 * code (SQLITE_BUSY_SNAPSHOT is 517): a primary code (below 256) matches all its extended ones.
 */
export function isSqliteError(error: unknown, code: number): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  if (typeof errcode !== 'number') return false;
  return code < 256 ? (errcode & 0xff) === code : errcode === code;
}
