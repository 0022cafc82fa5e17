// The SQLite module's own parts (src/sqlite.ts): transactions that commit, roll back and nest
// as better-sqlite3's did, SQLite's result codes read off node:sqlite's errors, and named
// parameters that must all be given.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openServiceDb } from '../src/local-service/db/open.js';
import { VectorStore } from '../src/local-service/knowledge/vector-store.js';
import {
  inTransaction,
  isSqliteError,
  openDatabase,
  prepareNamed,
  SqliteCode,
} from '../src/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'chatbridge-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function table() {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE t (v TEXT UNIQUE)');
  const add = db.prepare<[string]>('INSERT INTO t (v) VALUES (?)');
  const values = () => db.prepare<[], { v: string }>('SELECT v FROM t ORDER BY v').all();
  return { db, add, values: () => values().map((row) => row.v) };
}

describe('inTransaction', () => {
  it('commits what fn wrote and returns its result', () => {
    const { db, add, values } = table();
    expect(inTransaction(db, () => (add.run('a'), add.run('b'), 'done'))).toBe('done');
    expect(values()).toEqual(['a', 'b']);
    expect(db.isTransaction).toBe(false);
  });

  it('rolls everything back when fn throws, and throws that error', () => {
    const { db, add, values } = table();
    const failure = new Error('half way');
    expect(() =>
      inTransaction(db, () => {
        add.run('a');
        throw failure;
      }),
    ).toThrow(failure);
    expect(values()).toEqual([]);
    expect(db.isTransaction).toBe(false);
  });

  it('nests as a savepoint: an inner failure undoes only the inner work', () => {
    const { db, add, values } = table();
    inTransaction(db, () => {
      add.run('outer');
      expect(() =>
        inTransaction(db, () => {
          add.run('inner');
          add.run('outer'); // a UNIQUE violation
        }),
      ).toThrow(/UNIQUE/);
      inTransaction(db, () => add.run('second'));
    });
    expect(values()).toEqual(['outer', 'second']);
  });

  it('refuses async work, committing none of it', () => {
    const { db, add, values } = table();
    expect(() =>
      inTransaction(db, async () => {
        add.run('a');
      }),
    ).toThrow(/cannot run async work/);
    expect(values()).toEqual([]);
  });

  it('takes the write lock at once (IMMEDIATE): another writer is refused before fn writes', () => {
    const path = join(dir, 'immediate.sqlite');
    const db = openDatabase(path);
    db.exec('CREATE TABLE t (v TEXT)');
    const other = openDatabase(path);
    inTransaction(db, () => {
      expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(
        expect.objectContaining({ errcode: SqliteCode.BUSY }),
      );
    });
    other.exec('BEGIN IMMEDIATE; ROLLBACK'); // free again once it committed
    other.close();
    db.close();
  });

  it('rolls back when COMMIT itself is refused (busy), leaving no transaction open', () => {
    // A rollback-journal file (the state's sqlite:// store): COMMIT needs every reader gone.
    const path = join(dir, 'commit-busy.sqlite');
    const db = openDatabase(path);
    db.exec('CREATE TABLE t (v TEXT)');
    const reader = openDatabase(path);
    reader.exec('BEGIN');
    reader.prepare('SELECT * FROM t').all(); // holds a read lock until its transaction ends
    const add = db.prepare<[string]>('INSERT INTO t (v) VALUES (?)');
    expect(() => inTransaction(db, () => add.run('lost'))).toThrow(
      expect.objectContaining({ errcode: SqliteCode.BUSY }),
    );
    expect(db.isTransaction).toBe(false);
    reader.exec('COMMIT');
    inTransaction(db, () => add.run('kept'));
    expect(reader.prepare('SELECT v FROM t').all()).toEqual([{ v: 'kept' }]);
    reader.close();
    db.close();
  });
});

describe('prepareNamed', () => {
  it('binds every name given, ignores other keys, and refuses a name left out, naming it', () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE p (a TEXT, b TEXT)');
    const insert = prepareNamed(db, 'INSERT INTO p (a, b) VALUES (@a, @b)');
    const rows = () => db.prepare<[], { a: string; b: string | null }>('SELECT a, b FROM p').all();
    insert.run({ a: 'x', b: null, ...{ extra: 1 } });
    expect(rows().map((row) => ({ ...row }))).toEqual([{ a: 'x', b: null }]);
    // The names are read off the SQL at compile time too: leaving one out does not compile.
    // @ts-expect-error: @b is not given
    expect(() => insert.run({ a: 'y' })).toThrow(/@b was not given/);
    // node:sqlite alone would write NULL for @b.
    expect(() => insert.run({ a: 'y' } as never)).toThrow(
      /SQL parameter @b was not given \(INSERT INTO p/,
    );
    expect(() => insert.run({ a: 'y', b: undefined } as never)).toThrow(/@b was not given/);
    expect(rows()).toHaveLength(1);
  });
});

describe('isSqliteError', () => {
  it('reads the result code, a primary code matching its extended ones', () => {
    const { add } = table();
    add.run('a');
    let error: unknown;
    try {
      add.run('a');
    } catch (caught) {
      error = caught;
    }
    expect(isSqliteError(error, SqliteCode.CONSTRAINT_UNIQUE)).toBe(true);
    expect(isSqliteError(error, 19)).toBe(true); // SQLITE_CONSTRAINT, its primary code
    expect(isSqliteError(error, SqliteCode.BUSY)).toBe(false);
    expect(isSqliteError(new Error('database is locked'), SqliteCode.BUSY)).toBe(false);
  });

  it('tells a busy file from a locked-out writer, with no wait given', () => {
    const path = join(dir, 'busy.sqlite');
    const holder = openDatabase(path);
    holder.exec('CREATE TABLE t (v); BEGIN IMMEDIATE');
    const other = openDatabase(path);
    expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(
      expect.objectContaining({ errcode: SqliteCode.BUSY }),
    );
    holder.exec('ROLLBACK');
    holder.close();
    other.close();
  });
});

describe('the service store and extensions', () => {
  it('loads sqlite-vec, and SQL itself can load no extension', () => {
    const db = openServiceDb('memory://');
    expect(new VectorStore(db, 'model').withoutSqliteVec).toBeUndefined();
    expect(() => db.prepare("SELECT load_extension('/nonexistent')").get()).toThrow(
      /not authorized/,
    );
    // Nor JavaScript: loading was turned on for sqlite-vec alone, and off again after it.
    expect(() => db.loadExtension('/nonexistent')).toThrow(/not enabled/);
    db.close();
  });

  it('gives no way to load one when embeddings are off (sqlite-vec never loaded)', () => {
    const db = openServiceDb('memory://');
    expect(() => db.loadExtension('/nonexistent')).toThrow(/not enabled/);
    db.close();
  });
});
