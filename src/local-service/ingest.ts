// Adding knowledge: question/answer pairs and uploads are stored (pending), indexed, then marked
// success before the response (an index failure marks them error and answers 500); a URL is
// answered at once with status "await" and fetched in the background, then "success" or
// "error" (with the reason in error_message and meta_json.error). Fetches still pending at a
// restart are resumed. Same bytes uploaded twice, or the same URL added twice, answer 409 with
// the existing data source as the body (a failed URL is fetched again instead).
import { createHash } from 'node:crypto';
import type { Logger } from '../log.js';
import { HttpError } from './http-errors.js';
import { isoTimestamp, newId } from './ids.js';
import type { FetchedPage, KnowledgePort } from './knowledge-port.js';
import { ExtractionLimitError, UnsupportedFileTypeError } from './knowledge/types.js';
import { type SourceRecord, sourceWire } from './records.js';
import type { Repository } from './repository.js';

export interface UploadInput {
  bytes: Buffer;
  fileName: string;
  contentType?: string;
  meta: Record<string, unknown>;
}

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');
const conflict = (existing: SourceRecord): HttpError =>
  new HttpError(409, 'conflict', 'this data source already exists', { body: sourceWire(existing) });

export class Ingestor {
  private readonly tasks = new Set<Promise<void>>();
  private readonly stop = new AbortController();

  constructor(
    private readonly repo: Repository,
    private readonly knowledge: KnowledgePort,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

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

  async addQa(owner: string, chatbotUuid: string, question: string, answer: string) {
    const text = `${question.trim()}\n\n${answer.trim()}`;
    const record: SourceRecord = {
      ...this.base(owner, chatbotUuid, 'qa', question.trim().slice(0, 200)),
      file_size: byteLength(text),
      meta_json: JSON.stringify({ question, answer }),
    };
    return this.storeThenIndex(record, { fileName: '', text });
  }

  /**
   * The record is stored first (pending), then the text is indexed, then the record is marked
   * success: a failed store leaves nothing searchable, a failed index leaves an "error" record.
   */
  private async storeThenIndex(
    record: SourceRecord,
    source: { fileName: string; link?: string; text: string },
  ): Promise<SourceRecord> {
    await this.repo.createSource(record);
    let tokens: number;
    try {
      ({ tokens } = await this.knowledge.index.add({
        uuid: record.uuid,
        chatbotUuid: record.chatbotUuid,
        title: record.title,
        type: record.type,
        ...source,
      }));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.error({ err: error, source: record.uuid }, 'indexing a data source failed');
      await this.setStatus(record.uuid, (r) => ({
        ...r,
        status: 'error',
        error_message: `indexing failed: ${reason}`,
      }));
      throw new HttpError(500, 'index_failed', 'the data source could not be indexed; try again');
    }
    const done = await this.setStatus(record.uuid, (r) => ({ ...r, status: 'success', tokens }));
    return done ?? { ...record, status: 'success', tokens };
  }

  private setStatus(uuid: string, change: (r: SourceRecord) => SourceRecord) {
    return this.repo.updateSource(uuid, (r) => ({
      ...change(r),
      modified_at: isoTimestamp(this.now()),
    }));
  }

  async addUpload(owner: string, chatbotUuid: string, input: UploadInput): Promise<SourceRecord> {
    const hash = createHash('sha256').update(input.bytes).digest('hex');
    const key = `upload:${chatbotUuid}:${hash}`;
    return this.repo.exclusive(key, async () => {
      const existingUuid = await this.repo.lookup(key);
      const existing = existingUuid ? await this.repo.getSource(existingUuid) : undefined;
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
      };
      const done = await this.storeThenIndex(record, {
        fileName: input.fileName,
        link: typeof link === 'string' ? link : undefined,
        text,
      });
      // Remembered only once searchable: after a failed index the same bytes may be sent again.
      await this.repo.remember(key, done.uuid);
      return done;
    });
  }

  private async readFile(input: UploadInput): Promise<string> {
    try {
      return await this.knowledge.extractText(input.fileName, input.bytes, input.contentType);
    } catch (error) {
      if (error instanceof UnsupportedFileTypeError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      // A well-formed file that asks for more text, memory or time than one file may take.
      if (error instanceof ExtractionLimitError) {
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
    const key = `url:${chatbotUuid}:${url}`;
    const record = await this.repo.exclusive(key, async () => {
      const existingUuid = await this.repo.lookup(key);
      const existing = existingUuid ? await this.repo.getSource(existingUuid) : undefined;
      if (existing && existing.status !== 'error') throw conflict(existing);
      if (existing) {
        const again = await this.repo.updateSource(existing.uuid, (r) => {
          const { error_message: _reason, ...rest } = r;
          return { ...rest, status: 'await', modified_at: isoTimestamp(this.now()) };
        });
        return again ?? existing;
      }
      const fresh: SourceRecord = {
        ...this.base(owner, chatbotUuid, 'url', url),
        file_name: url,
        url,
        meta_json: JSON.stringify({ url, reference_source_link: url }),
      };
      await this.repo.createSource(fresh);
      await this.repo.remember(key, fresh.uuid);
      return fresh;
    });
    await this.repo.markFetchPending(record.uuid);
    this.schedule(record.uuid);
    return record;
  }

  /** Picks up the URL fetches a previous run left pending. */
  async resume(): Promise<void> {
    for (const uuid of await this.repo.pendingFetches()) this.schedule(uuid);
  }

  private schedule(uuid: string): void {
    const task = this.fetchSource(uuid).catch((error: unknown) => {
      this.logger.error({ err: error, source: uuid }, 'URL ingestion failed unexpectedly');
    });
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  private async fetchSource(uuid: string): Promise<void> {
    const record = await this.repo.getSource(uuid);
    if (!record || record.status !== 'await' || !record.url) {
      await this.repo.markFetchDone(uuid);
      return;
    }
    const url = record.url;
    let page: FetchedPage;
    try {
      page = await this.knowledge.fetchUrl(url, this.stop.signal);
      if (page.text.trim() === '') throw new Error('the page has no readable text');
    } catch (error) {
      if (this.stop.signal.aborted) return; // stays pending; resumed at the next start
      const reason = error instanceof Error ? error.message : String(error);
      await this.finish(uuid, (r) => ({
        ...r,
        status: 'error',
        error_message: reason,
        meta_json: JSON.stringify({ ...JSON.parse(r.meta_json), error: reason }),
      }));
      return;
    }
    await this.finish(uuid, async (r) => {
      // A title the user chose while the page was loading wins over the page's own.
      const title = r.title === url && page.title ? page.title.trim().slice(0, 200) : r.title;
      const { tokens } = await this.knowledge.index.add({
        uuid,
        chatbotUuid: r.chatbotUuid,
        title,
        type: 'url',
        fileName: url,
        link: url,
        text: page.text,
      });
      const { error_message: _old, ...rest } = r;
      const size = page.bytes ?? byteLength(page.text);
      return { ...rest, title, status: 'success', tokens, file_size: size };
    });
  }

  private async finish(
    uuid: string,
    change: (r: SourceRecord) => SourceRecord | Promise<SourceRecord>,
  ): Promise<void> {
    await this.repo.updateSource(uuid, async (r) => ({
      ...(await change(r)),
      modified_at: isoTimestamp(this.now()),
    }));
    await this.repo.markFetchDone(uuid);
  }

  async rename(uuid: string, title: string): Promise<SourceRecord | undefined> {
    return this.repo.updateSource(uuid, async (r) => {
      if (r.status === 'success') await this.knowledge.index.rename(uuid, title);
      return { ...r, title, modified_at: isoTimestamp(this.now()) };
    });
  }

  /** Resolves when every background fetch started so far has finished. */
  async drain(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
  }

  async close(): Promise<void> {
    this.stop.abort(new Error('service closing'));
    await this.drain();
  }
}
