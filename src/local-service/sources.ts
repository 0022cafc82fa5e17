// Data sources and their chunks in SQLite. A source becomes searchable in the same transaction
// that records it as `success`, so no process ever sees a success without its chunks, or
// chunks of a source it cannot list. Uniqueness (the same bytes, or the same URL, once per
// chatbot) is kept by unique indexes, which hold across processes.
//
// A URL source waits (`await`) for a background fetch. The process that fetches it holds a
// lease (fetch_lease_until, fetch_owner = "<pid>:<instance>"), so two processes on one file do
// not fetch it twice. A fetch left by a crash is taken up again at once by the next start:
// its owner's process is gone (the file is local, so its pid can be asked after; a lease
// with this process's pid from no instance of it is an earlier process's), or else when the
// lease runs out.
import { CodedError, ErrorCode } from '../errors.js';
import { inTransaction, isSqliteError, prepareNamed, SqliteCode } from '../sqlite.js';
import type { ServiceDb } from './db/open.js';
import { ChunkStore, type PreparedText } from './knowledge/chunk-store.js';
import type { SourceRecord } from './records.js';
import { type SourceRow, sourceRecord } from './rows.js';

const COLUMNS = `s.id, s.uuid, s.chatbot_id, c.uuid AS chatbot_uuid, c.owner, s.title, s.type,
  s.status, s.file_name, s.file_size, s.tokens, s.meta_json, s.error_message, s.content_hash,
  s.url, s.link, s.created_at, s.modified_at`;
const FROM = 'FROM sources s JOIN chatbots c ON c.id = s.chatbot_id';

/** The same bytes or the same URL is already a data source of this chatbot. */
export class DuplicateSourceError extends CodedError {
  constructor(readonly existing: SourceRecord) {
    super(ErrorCode.SourceDuplicate, 'this data source already exists');
    this.name = 'DuplicateSourceError';
  }
}

interface Lease {
  uuid: string;
  status: string;
  fetch_lease_until: number | null;
  fetch_owner: string | null;
}

/** The lease names of the service instances in this process (one per SourceStore). */
const ownersHere = new Set<string>();

/** Whether a lease's owner may still be working: a live process, or another instance here. */
function ownerAlive(owner: string | null, self: string): boolean {
  if (owner === null) return false;
  const pid = Number(owner.split(':')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // Our pid, but not an instance of ours: an earlier process had it (a restarted container's
  // service is pid 1 every time), so that process is gone.
  if (pid === process.pid) return owner !== self && ownersHere.has(owner);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, not ours to signal
  }
}

/** Whether a fetch waits for `self` to take it. */
const takeable = (lease: Lease, nowMs: number, self: string) =>
  lease.status === 'await' &&
  (lease.fetch_owner === self ||
    (lease.fetch_lease_until ?? 0) < nowMs ||
    !ownerAlive(lease.fetch_owner, self));

const isUniqueViolation = (error: unknown) => isSqliteError(error, SqliteCode.CONSTRAINT_UNIQUE);

function prepare(db: ServiceDb) {
  return {
    byUuid: db.prepare<[string], SourceRow>(`SELECT ${COLUMNS} ${FROM} WHERE s.uuid = ?`),
    ofChatbot: db.prepare<[string], SourceRow>(
      `SELECT ${COLUMNS} ${FROM} WHERE c.uuid = ? ORDER BY s.id`,
    ),
    byHash: db.prepare<[string, string], SourceRow>(
      `SELECT ${COLUMNS} ${FROM} WHERE c.uuid = ? AND s.content_hash = ?`,
    ),
    byUrl: db.prepare<[string, string], SourceRow>(
      `SELECT ${COLUMNS} ${FROM} WHERE c.uuid = ? AND s.url = ?`,
    ),
    insert: prepareNamed(
      db,
      `INSERT INTO sources (uuid, chatbot_id, title, type, status, file_name, file_size, tokens,
         meta_json, error_message, content_hash, url, link, created_at, modified_at)
       SELECT @uuid, id, @title, @type, @status, @file_name, @file_size, @tokens, @meta_json,
         @error_message, @content_hash, @url, @link, @created_at, @modified_at
       FROM chatbots WHERE uuid = @chatbot_uuid`,
    ),
    update: prepareNamed(
      db,
      `UPDATE sources SET title = @title, status = @status, file_name = @file_name,
         file_size = @file_size, tokens = @tokens, meta_json = @meta_json,
         error_message = @error_message, link = @link, modified_at = @modified_at,
         fetch_lease_until = CASE WHEN @status = 'await' THEN fetch_lease_until END,
         fetch_owner = CASE WHEN @status = 'await' THEN fetch_owner END
       WHERE id = @id`,
    ),
    lease: db.prepare<[string], Lease>(
      'SELECT uuid, status, fetch_lease_until, fetch_owner FROM sources WHERE uuid = ?',
    ),
    take: db.prepare<[number, string, string]>(
      'UPDATE sources SET fetch_lease_until = ?, fetch_owner = ? WHERE uuid = ?',
    ),
    release: db.prepare<[string, string]>(
      `UPDATE sources SET fetch_lease_until = NULL, fetch_owner = NULL
       WHERE uuid = ? AND fetch_owner = ?`,
    ),
    unfinished: db.prepare<[], Lease>(
      `SELECT uuid, status, fetch_lease_until, fetch_owner FROM sources
       WHERE status = 'await' ORDER BY id`,
    ),
  };
}

function columnsOf(record: SourceRecord) {
  return {
    title: record.title,
    status: record.status,
    file_name: record.file_name,
    file_size: record.file_size,
    tokens: record.tokens,
    meta_json: record.meta_json,
    error_message: record.error_message ?? null,
    link: record.link ?? null,
    modified_at: record.modified_at,
  };
}

export class SourceStore {
  private readonly q: ReturnType<typeof prepare>;
  private readonly chunks: ChunkStore;
  /** This instance's name on its leases: its process's pid, and which instance in it. */
  private readonly owner = `${process.pid}:${Math.random().toString(36).slice(2, 10)}`;

  constructor(private readonly db: ServiceDb) {
    this.q = prepare(db);
    this.chunks = new ChunkStore(db);
    ownersHere.add(this.owner);
  }

  get(uuid: string): SourceRecord | undefined {
    const row = this.q.byUuid.get(uuid);
    return row && sourceRecord(row);
  }

  list(chatbotUuid: string): SourceRecord[] {
    return this.q.ofChatbot.all(chatbotUuid).map(sourceRecord);
  }

  findUpload(chatbotUuid: string, contentHash: string): SourceRecord | undefined {
    const row = this.q.byHash.get(chatbotUuid, contentHash);
    return row && sourceRecord(row);
  }

  findUrl(chatbotUuid: string, url: string): SourceRecord | undefined {
    const row = this.q.byUrl.get(chatbotUuid, url);
    return row && sourceRecord(row);
  }

  private insert(record: SourceRecord): SourceRow {
    try {
      this.q.insert.run({
        ...columnsOf(record),
        uuid: record.uuid,
        chatbot_uuid: record.chatbotUuid,
        type: record.type,
        content_hash: record.contentHash ?? null,
        url: record.url ?? null,
        created_at: record.created_at,
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const existing =
        (record.contentHash && this.findUpload(record.chatbotUuid, record.contentHash)) ||
        (record.url && this.findUrl(record.chatbotUuid, record.url));
      if (existing) throw new DuplicateSourceError(existing);
      throw error;
    }
    const row = this.q.byUuid.get(record.uuid);
    if (row === undefined) throw new Error(`no chatbot ${record.chatbotUuid}`);
    return row;
  }

  /** Stores a source and its chunks at once (Q&A pairs, uploads). */
  createIndexed(record: SourceRecord, text: PreparedText): SourceRecord {
    return inTransaction(this.db, () => {
      const row = this.insert(record);
      this.chunks.replace(
        { sourceId: row.id, chatbotId: row.chatbot_id, title: row.title },
        text.chunks,
      );
      return sourceRecord(row);
    });
  }

  /** Stores a source that waits for its fetch (URLs). */
  createPending(record: SourceRecord): SourceRecord {
    return inTransaction(this.db, () => sourceRecord(this.insert(record)));
  }

  /**
   * Changes a stored source in one transaction (read, change, write), with its new chunks
   * when given. A fetch lease ends with the wait. Undefined when there is no such source.
   */
  change(
    uuid: string,
    change: (record: SourceRecord) => SourceRecord,
    text?: PreparedText,
  ): SourceRecord | undefined {
    return inTransaction(this.db, () => {
      const row = this.q.byUuid.get(uuid);
      if (row === undefined) return undefined;
      const next = change(sourceRecord(row));
      this.q.update.run({ ...columnsOf(next), id: row.id });
      const owner = { sourceId: row.id, chatbotId: row.chatbot_id, title: next.title };
      if (text !== undefined) this.chunks.replace(owner, text.chunks);
      else if (next.title !== row.title) this.chunks.retitle(owner);
      return next;
    });
  }

  /**
   * Takes (or renews) the fetch of a waiting URL source for leaseMs; false when it is done or
   * another live process holds it.
   */
  claimFetch(uuid: string, nowMs: number, leaseMs: number): boolean {
    return inTransaction(this.db, () => {
      const lease = this.q.lease.get(uuid);
      if (lease === undefined || !takeable(lease, nowMs, this.owner)) return false;
      this.q.take.run(nowMs + leaseMs, this.owner, uuid);
      return true;
    });
  }

  /** Gives a fetch back unfinished (the service is stopping): the next sweep takes it up. */
  releaseFetch(uuid: string): void {
    this.q.release.run(uuid, this.owner);
  }

  /** Sources no process is working on that never finished (a crash, a stop mid-fetch). */
  unfinished(nowMs: number): string[] {
    return this.q.unfinished
      .all()
      .filter((lease) => takeable(lease, nowMs, this.owner))
      .map((lease) => lease.uuid);
  }
}
