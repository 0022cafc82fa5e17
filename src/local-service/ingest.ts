// Adding knowledge. A question/answer pair or an upload is read and cut into chunks first,
// then stored with its chunks as `success` in one transaction before the response: what was
// acknowledged is searchable, and a crash before that leaves nothing behind. A URL is answered
// at once with status `await` and fetched in the background, then `success` (with its chunks,
// in one transaction) or `error` with the reason in error_message and meta_json.error.
//
// Fetches are leased (see sources.ts): a sweep every LEASE_MS / 2 takes up what a crash or a
// stop left waiting, in this process or another on the same file. The same bytes uploaded
// twice, or the same URL added twice, answer 409 with the existing data source as the body (a
// failed URL is fetched again instead).
import { createHash } from 'node:crypto';
import { ErrorCode, isCodedError } from '../errors.js';
import type { Logger } from '../log.js';
import { HttpError, isStoreBusy } from './http-errors.js';
import { isoTimestamp, newId } from './ids.js';
import type { FetchedPage, KnowledgePort } from './knowledge-port.js';
import { type PreparedText, prepareText } from './knowledge/chunk-store.js';
import { type SourceRecord, sourceWire } from './records.js';
import type { Repository } from './repository.js';
import { DuplicateSourceError } from './sources.js';

/** Where finished ingestions are counted (the service's metrics). */
export interface IngestionCounter {
  inc(labels: { type: string; outcome: 'ok' | 'failed' }): void;
}

export interface UploadInput {
  bytes: Buffer;
  fileName: string;
  contentType?: string;
  meta: Record<string, unknown>;
}

/** How long a fetch is held by the process doing it; renewed while it runs. */
export const LEASE_MS = 30_000;

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');
const conflict = (existing: SourceRecord): HttpError =>
  new HttpError(409, 'conflict', 'this data source already exists', { body: sourceWire(existing) });

export class Ingestor {
  private readonly tasks = new Set<Promise<void>>();
  private readonly fetching = new Set<string>();
  private readonly stop = new AbortController();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly repo: Repository,
    private readonly knowledge: KnowledgePort,
    private readonly now: () => number,
    private readonly logger: Logger,
    private readonly counted: IngestionCounter = { inc: () => undefined },
  ) {}

  private count(type: string, outcome: 'ok' | 'failed'): void {
    this.counted.inc({ type, outcome });
  }

  private base(owner: string, chatbotUuid: string, type: string, title: string): SourceRecord {
    const at = isoTimestamp(this.now());
    return {
      owner,
      chatbotUuid,
      uuid: newId(),
      title,
      type,
      status: 'await',
      file_name: '',
      file_size: 0,
      tokens: 0,
      meta_json: '{}',
      created_at: at,
      modified_at: at,
    };
  }

  /** The text cut into chunks: by the knowledge side (in a converter process, with limits) when it can. */
  private prepare(text: string): Promise<PreparedText> {
    return this.knowledge.prepareText?.(text) ?? Promise.resolve(prepareText(text));
  }

  /**
   * Stores a source with its chunks, searchable as soon as it is acknowledged. A text that
   * breaks a limit of reading it (see extract-pool.ts) is refused, naming `field`.
   */
  private async storeIndexed(
    record: SourceRecord,
    text: string,
    field: string,
  ): Promise<SourceRecord> {
    let prepared: PreparedText;
    try {
      prepared = await this.prepare(text);
    } catch (error) {
      this.count(record.type, 'failed');
      const reason = error instanceof Error ? error.message : String(error);
      if (isCodedError(error, ErrorCode.ExtractionLimit)) {
        const named = record.file_name === '' ? '' : `"${record.file_name}": `;
        throw new HttpError(422, 'extraction_limit', `${field}: refused: ${named}${reason}`, {
          field,
        });
      }
      this.logger.error({ err: error, source: record.uuid }, 'reading a data source failed');
      throw new HttpError(500, 'index_failed', 'the data source could not be stored; try again');
    }
    try {
      const stored = this.repo.sources.createIndexed(
        { ...record, status: 'success', tokens: prepared.tokens },
        prepared,
      );
      this.count(record.type, 'ok');
      return stored;
    } catch (error) {
      if (error instanceof DuplicateSourceError) throw conflict(error.existing);
      this.count(record.type, 'failed');
      if (isStoreBusy(error)) throw error; // answered 503: another process held the lock
      this.logger.error({ err: error, source: record.uuid }, 'storing a data source failed');
      throw new HttpError(500, 'index_failed', 'the data source could not be stored; try again');
    }
  }

  async addQa(owner: string, chatbotUuid: string, question: string, answer: string) {
    const text = `${question.trim()}\n\n${answer.trim()}`;
    const record: SourceRecord = {
      ...this.base(owner, chatbotUuid, 'qa', question.trim().slice(0, 200)),
      file_size: byteLength(text),
      meta_json: JSON.stringify({ question, answer }),
    };
    return this.storeIndexed(record, text, 'answer');
  }

  async addUpload(owner: string, chatbotUuid: string, input: UploadInput): Promise<SourceRecord> {
    const hash = createHash('sha256').update(input.bytes).digest('hex');
    const existing = this.repo.sources.findUpload(chatbotUuid, hash);
    if (existing) throw conflict(existing);
    const text = await this.readFile(input);
    if (text.trim() === '') throw HttpError.badRequest('file', 'contains no readable text');
    const link = input.meta.reference_source_link;
    const record: SourceRecord = {
      ...this.base(owner, chatbotUuid, 'upload', input.fileName),
      file_name: input.fileName,
      file_size: input.bytes.byteLength,
      meta_json: JSON.stringify(input.meta),
      contentHash: hash,
      ...(typeof link === 'string' ? { link } : {}),
    };
    return this.storeIndexed(record, text, 'file');
  }

  private async readFile(input: UploadInput): Promise<string> {
    try {
      return await this.knowledge.extractText(input.fileName, input.bytes, input.contentType);
    } catch (error) {
      this.count('upload', 'failed');
      if (isCodedError(error, ErrorCode.FileTypeUnsupported, ErrorCode.HttpResponse)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      // A well-formed file that asks for more text, memory or time than one file may take.
      if (isCodedError(error, ErrorCode.ExtractionLimit)) {
        throw new HttpError(422, 'extraction_limit', `file: refused: ${reason}`, {
          field: 'file',
        });
      }
      // A damaged or empty file is the sender's problem: say what was wrong with it.
      throw new HttpError(400, 'unreadable_file', `file: could not be read: ${reason}`, {
        field: 'file',
      });
    }
  }

  async addUrl(owner: string, chatbotUuid: string, url: string): Promise<SourceRecord> {
    const sources = this.repo.sources;
    const existing = sources.findUrl(chatbotUuid, url);
    if (existing && existing.status !== 'error') throw conflict(existing);
    let record: SourceRecord | undefined;
    if (existing) {
      record = sources.change(existing.uuid, (r) => {
        const { error_message: _reason, ...rest } = r;
        return { ...rest, status: 'await', modified_at: isoTimestamp(this.now()) };
      });
    }
    if (!record) {
      const fresh: SourceRecord = {
        ...this.base(owner, chatbotUuid, 'url', url),
        file_name: url,
        url,
        link: url,
        meta_json: JSON.stringify({ url, reference_source_link: url }),
      };
      try {
        record = sources.createPending(fresh);
      } catch (error) {
        if (error instanceof DuplicateSourceError) throw conflict(error.existing);
        throw error;
      }
    }
    this.schedule(record.uuid);
    return record;
  }

  /** Takes up the fetches nobody is doing now (left by a crash or a stop), and keeps doing so. */
  async resume(): Promise<void> {
    this.sweep();
    this.sweeper = setInterval(() => this.sweep(), LEASE_MS / 2);
    this.sweeper.unref();
  }

  private sweep(): void {
    if (this.stop.signal.aborted) return;
    try {
      for (const uuid of this.repo.sources.unfinished(this.now())) this.schedule(uuid);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not look for unfinished URL fetches');
    }
  }

  private schedule(uuid: string): void {
    if (this.fetching.has(uuid) || this.stop.signal.aborted) return;
    this.fetching.add(uuid);
    const task = this.fetchSource(uuid)
      .catch((error: unknown) => {
        this.logger.error({ err: error, source: uuid }, 'URL ingestion failed unexpectedly');
      })
      .finally(() => this.fetching.delete(uuid));
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  private async fetchSource(uuid: string): Promise<void> {
    const sources = this.repo.sources;
    if (!sources.claimFetch(uuid, this.now(), LEASE_MS)) return; // done, or another has it
    const renew = setInterval(() => {
      try {
        sources.claimFetch(uuid, this.now(), LEASE_MS);
      } catch (error) {
        this.logger.warn({ err: error, source: uuid }, 'could not renew a fetch lease');
      }
    }, LEASE_MS / 3);
    renew.unref();
    try {
      await this.fetchClaimed(uuid);
    } finally {
      clearInterval(renew);
    }
  }

  private async fetchClaimed(uuid: string): Promise<void> {
    const sources = this.repo.sources;
    const record = sources.get(uuid);
    if (!record?.url) return;
    const url = record.url;
    let page: FetchedPage;
    let prepared: PreparedText;
    try {
      page = await this.knowledge.fetchUrl(url, this.stop.signal);
      if (page.text.trim() === '') throw new Error('the page has no readable text');
      prepared = await this.prepare(page.text);
    } catch (error) {
      if (this.stop.signal.aborted) {
        sources.releaseFetch(uuid); // taken up again at the next start
        return;
      }
      const reason = error instanceof Error ? error.message : String(error);
      this.count('url', 'failed');
      sources.change(uuid, (r) => ({
        ...r,
        status: 'error',
        error_message: reason,
        meta_json: JSON.stringify({ ...JSON.parse(r.meta_json), error: reason }),
        modified_at: isoTimestamp(this.now()),
      }));
      return;
    }
    sources.change(
      uuid,
      (r) => {
        // A title the user chose while the page was loading wins over the page's own.
        const title = r.title === url && page.title ? page.title.trim().slice(0, 200) : r.title;
        const { error_message: _old, ...rest } = r;
        return {
          ...rest,
          title,
          status: 'success',
          tokens: prepared.tokens,
          file_size: page.bytes ?? byteLength(page.text),
          modified_at: isoTimestamp(this.now()),
        };
      },
      prepared,
    );
    this.count('url', 'ok');
  }

  async rename(uuid: string, title: string): Promise<SourceRecord | undefined> {
    return this.repo.sources.change(uuid, (r) => ({
      ...r,
      title,
      modified_at: isoTimestamp(this.now()),
    }));
  }

  /** Resolves when every background fetch started so far has finished. */
  async drain(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
  }

  async close(): Promise<void> {
    this.stop.abort(new Error('service closing'));
    if (this.sweeper) clearInterval(this.sweeper);
    await this.drain();
  }
}
