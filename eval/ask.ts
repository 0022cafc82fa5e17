// Asking the local service, end to end over its HTTP interface: a service in this process on a
// temporary SQLite file, the corpus uploaded to one chatbot and the Q&A pairs added to another,
// each question asked in a session of its own through the answer stream, and the stored
// message read back for its citations.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { pino } from 'pino';
import { startLocalService, type LocalService } from '../src/local-service/index.js';
import { createServiceClient, isServiceError, parseCitations } from '../src/service/index.js';
import type { ServiceClient } from '../src/service/api.js';
import type { CorpusFile, QaPair } from './data.js';

const API_KEY = 'eval-key-0123456789';
/** Uploads in flight per chatbot: enough to keep the service's converter processes busy. */
const UPLOADS_AT_ONCE = 4;

export interface UploadFile {
  /** The document's name in the eval's tables, e.g. "luxon/zones.pdf". */
  doc: string;
  /** The uploaded file's name; default "<package>-<file>" from `doc`. */
  fileName?: string;
  bytes: Uint8Array;
  contentType: string;
}

export interface Asked {
  /** The answer as streamed. */
  streamed: string;
  /** The stored message's response (what the chat shows at the end). */
  answer: string;
  /** The document of each cited data source, in order of first citation. */
  citedDocs: string[];
  /** The whole text of every passage the answer cites (cite_data), in marker order. */
  citedPassages: string[];
  ms: number;
}

export class EvalService {
  private constructor(
    private readonly service: LocalService,
    private readonly client: ServiceClient,
    private readonly dir: string,
    /** data source uuid → document (a corpus path, or "qa:<id>"). */
    private readonly docs: Map<string, string>,
  ) {}

  /** `embeddings`: semantic retrieval beside bm25 (`--embeddings URL`); off by default. */
  static async start(embeddings?: { url: string; model: string }): Promise<EvalService> {
    const dir = mkdtempSync(join(tmpdir(), 'chatbridge-eval-'));
    const service = await startLocalService({
      apiKeys: [API_KEY],
      storeUrl: `sqlite://${join(dir, 'eval.sqlite')}`,
      // With embeddings, a failing endpoint is said on stderr (the answers would be bm25's alone).
      ...(embeddings && { embeddings, logger: pino({ level: 'warn' }, pino.destination(2)) }),
    });
    const client = createServiceClient({ baseUrl: service.url, apiKey: API_KEY, maxRetries: 0 });
    return new EvalService(service, client, dir, new Map());
  }

  private async newChatbot(name: string): Promise<string> {
    const bot = await this.client.createChatbot({
      name,
      show_citations: true,
      rate_limit: [100, 1],
    });
    return bot.uuid;
  }

  /**
   * A chatbot holding every corpus file as an uploaded markdown source, named as someone
   * gathering them into one folder would: "<package>-<file>.md" (twenty READMEs cannot all be
   * README.md there).
   */
  async docsChatbot(files: CorpusFile[]): Promise<string> {
    return this.uploadsChatbot(
      'Eval: documentation',
      files.map((file) => ({
        doc: file.path,
        bytes: new TextEncoder().encode(file.text),
        contentType: 'text/markdown',
      })),
    );
  }

  /** A chatbot holding these files, each uploaded as a user's file ("<package>-<file>"). */
  async uploadsChatbot(name: string, files: UploadFile[]): Promise<string> {
    const chatbot = await this.newChatbot(name);
    // A few at a time, as the service converts files in parallel processes.
    const limit = pLimit(UPLOADS_AT_ONCE);
    await Promise.all(
      files.map((file) =>
        limit(async () => {
          const source = await this.client.uploadSource(chatbot, {
            file: file.bytes,
            file_name: file.fileName ?? file.doc.replace('/', '-'),
            content_type: file.contentType,
          });
          this.docs.set(source.uuid, file.doc);
        }),
      ),
    );
    return chatbot;
  }

  /** A chatbot holding the Q&A pairs. */
  async qaChatbot(pairs: QaPair[]): Promise<string> {
    const chatbot = await this.newChatbot('Eval: product FAQ');
    for (const pair of pairs) {
      const source = await this.client.addQaSource(chatbot, {
        question: pair.question,
        answer: pair.answer,
      });
      this.docs.set(source.uuid, `qa:${pair.id}`);
    }
    return chatbot;
  }

  async newSession(chatbot: string): Promise<string> {
    return (await this.client.createSession(chatbot)).uuid;
  }

  /** Asks in the session and reads the stored message back. */
  async ask(session: string, query: string): Promise<Asked> {
    const started = performance.now();
    let streamed = '';
    for (;;) {
      try {
        const stream = await this.client.streamMessage(session, { query });
        for await (const piece of stream) streamed += piece;
        break;
      } catch (error) {
        // The chatbot's rate limit is a window of one second: wait as the service asks.
        if (!isServiceError(error, 'rate_limited')) throw error;
        await sleep(error.retryAfterMs ?? 1000);
      }
    }
    const ms = performance.now() - started;
    const messages = await this.client.listMessages(session);
    const message = messages.at(-1);
    if (message === undefined) throw new Error(`no message stored for "${query}"`);
    const cited = parseCitations(message).citations;
    return {
      streamed,
      answer: message.response,
      citedDocs: cited.map((c) => this.docs.get(c.dataSourceUuid) ?? `(unknown ${c.title})`),
      citedPassages: cited.flatMap((c) => c.passages),
      ms,
    };
  }

  /** Resolves when every upload is embedded (with `--embeddings`; at once otherwise). */
  settled(): Promise<void> {
    return this.service.drain();
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.service.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
