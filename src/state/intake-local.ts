// The intake queue on SQLite (one table) and on memory (the same table in an
// in-memory database). SQLite is a one-process store, so the lease here covers a restart: the
// entries a crashed process held are taken over by the next one once their lease ran out. Every
// statement is synchronous, so two calls in this process never interleave inside one.
import { randomUUID } from 'node:crypto';
import { inTransaction, type Database } from '../sqlite.js';
import { LeaseRenewer, type IntakeOptions } from './intake-lease.js';
import type { IntakeQueue, IntakeStore, KeptEvent } from './types.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS chatbridge_intake (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  key TEXT NOT NULL,
  payload TEXT NOT NULL,
  owner TEXT,
  lease_until INTEGER,
  deliveries INTEGER NOT NULL DEFAULT 1,
  note TEXT,
  -- Set when the work is final: the row then only keeps its key known until this time.
  done_until INTEGER,
  UNIQUE (queue, key)
);
CREATE INDEX IF NOT EXISTS chatbridge_intake_open ON chatbridge_intake (queue, done_until, lease_until);
`;

/** Whether the connection's database is in memory (SQLite names no file for it). */
function inMemory(db: Database): boolean {
  const main = db
    .prepare<[], { file: string }>("SELECT file FROM pragma_database_list WHERE name = 'main'")
    .get();
  return main === undefined || main.file === '';
}

interface Row {
  id: number;
  key: string;
  payload: string;
  deliveries: number;
  note: string | null;
}

export class LocalIntakeStore implements IntakeStore {
  readonly leaseMs: number;
  private readonly queues = new Map<string, LocalIntakeQueue>();
  private readonly renewer: LeaseRenewer;
  /** A file outlives the process: its next start takes over what was released. */
  private readonly durable: boolean;

  constructor(
    private readonly db: Database,
    private readonly options: IntakeOptions,
    /** Shared with the other keys of the deployment: queues of two deployments never mix. */
    private readonly prefix: string,
    /** This process's name on the rows it holds. */
    private readonly owner: string = randomUUID(),
  ) {
    db.exec(SCHEMA);
    this.leaseMs = options.leaseMs;
    this.renewer = new LeaseRenewer(options);
    this.durable = !inMemory(db);
  }

  queue(name: string): IntakeQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new LocalIntakeQueue(
        this.db,
        `${this.prefix}:${name}`,
        this.owner,
        this.options,
        this.renewer,
        this.durable,
      );
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Stops renewing: what this process holds stays in the table for a takeover. */
  close(): void {
    this.renewer.stop();
  }
}

class LocalIntakeQueue implements IntakeQueue {
  private readonly statements;
  private readonly mine = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly name: string,
    private readonly owner: string,
    private readonly options: IntakeOptions,
    private readonly renewer: LeaseRenewer,
    private readonly durable: boolean,
  ) {
    this.statements = {
      sweep: db.prepare<[string, number]>(
        'DELETE FROM chatbridge_intake WHERE queue = ? AND done_until IS NOT NULL AND done_until <= ?',
      ),
      insert: db.prepare<[string, string, string, string, number]>(
        `INSERT INTO chatbridge_intake (queue, key, payload, owner, lease_until) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (queue, key) DO NOTHING`,
      ),
      renew: db.prepare<[number, number, string]>(
        'UPDATE chatbridge_intake SET lease_until = ? WHERE id = ? AND owner = ? AND done_until IS NULL',
      ),
      note: db.prepare<[string, number, string]>(
        'UPDATE chatbridge_intake SET note = ? WHERE id = ? AND owner = ? AND done_until IS NULL',
      ),
      finish: db.prepare<[number, number]>(
        `UPDATE chatbridge_intake SET done_until = ?, payload = '', note = NULL, owner = NULL
         WHERE id = ? AND done_until IS NULL`,
      ),
      expired: db.prepare<[string, number, number], Row>(
        `SELECT id, key, payload, deliveries, note FROM chatbridge_intake
         WHERE queue = ? AND done_until IS NULL AND lease_until <= ? ORDER BY id LIMIT ?`,
      ),
      take: db.prepare<[string, number, number]>(
        'UPDATE chatbridge_intake SET owner = ?, lease_until = ?, deliveries = deliveries + 1 WHERE id = ?',
      ),
    };
  }

  private claimRows(now: number, max: number): Row[] {
    return inTransaction(this.db, () => {
      const rows = this.statements.expired.all(this.name, now, max);
      for (const row of rows)
        this.statements.take.run(this.owner, now + this.options.leaseMs, row.id);
      return rows;
    });
  }

  get held(): number {
    return this.mine.size;
  }

  async keep(key: string, payload: string): Promise<KeptEvent | undefined> {
    const now = this.options.now();
    this.statements.sweep.run(this.name, now);
    const inserted = this.statements.insert.run(
      this.name,
      key,
      payload,
      this.owner,
      now + this.options.leaseMs,
    );
    if (inserted.changes === 0) return undefined;
    const id = String(inserted.lastInsertRowid);
    this.hold(id);
    return { id, key, payload, deliveries: 1 };
  }

  async note(id: string, note: string): Promise<void> {
    this.statements.note.run(note, Number(id), this.owner);
  }

  async finish(id: string): Promise<void> {
    this.statements.finish.run(this.options.now() + this.options.keyTtlMs, Number(id));
    this.mine.delete(id);
    this.renewer.forget(this, id);
  }

  async release(id: string): Promise<void> {
    this.mine.delete(id);
    this.renewer.forget(this, id);
    // A lease that ends now: the next claimExpired() takes it.
    this.statements.renew.run(this.options.now(), Number(id), this.owner);
  }

  /** SQLite is one process's store: only its next start takes over, and only from a file. */
  async canHandOff(): Promise<boolean> {
    return this.durable;
  }

  async claimExpired(max: number): Promise<KeptEvent[]> {
    const rows = this.claimRows(this.options.now(), max);
    return rows.map((row) => {
      const id = String(row.id);
      this.hold(id);
      return {
        id,
        key: row.key,
        payload: row.payload,
        deliveries: row.deliveries + 1,
        ...(row.note !== null ? { note: row.note } : {}),
      };
    });
  }

  private hold(id: string): void {
    this.mine.add(id);
    this.renewer.watch(this, id, async () => {
      const renewed = this.statements.renew.run(
        this.options.now() + this.options.leaseMs,
        Number(id),
        this.owner,
      );
      if (renewed.changes === 0) this.mine.delete(id);
      return renewed.changes > 0;
    });
  }
}
