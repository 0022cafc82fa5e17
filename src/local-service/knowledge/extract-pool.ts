// Worker threads that run the file converters which a hostile file can blow up (PDF, .docx,
// HTML, CSV, JSON), so that neither its memory nor its time is the service's: each worker has
// a V8 heap limit (resourceLimits), each file a wall-clock limit after which its worker is
// terminated and replaced, and the converters stop at the text limit. Buffers outside the V8
// heap (pdfjs inflates a content stream into one) escape resourceLimits, so while files are
// read the process's resident memory is watched too: a file under which it grows by more than
// twice the worker heap is stopped the same way, and a worker under which it grew by more than
// the heap is not kept. A worker that dies fails only its own file. Workers are created on
// first use, kept for the next file, and hold the process open only while they work.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PreparedText } from './chunk-store.js';
import type { ExtractJob, ExtractReply, ExtractTask, WorkerMessage } from './extract-worker.js';
import type { ExtractedText, FileKind } from './extract.js';
import { ExtractionLimitError } from './types.js';

export interface ExtractionPoolOptions {
  /** Worker threads at most. Default: the machine's parallelism, from 1 to 4. */
  workers?: number;
  /** Wall-clock time one file may take; its worker is then terminated. Default 20 000 ms. */
  timeoutMs?: number;
  /**
   * V8 heap (old generation) of each worker, in MB; the process may grow by twice this while
   * one file is read (heap and buffers). Default 512.
   */
  memoryMb?: number;
  /** Told when a file (or a text to cut, kind 'prepare') is handed to a worker (tests wait for it). */
  onJobStart?: (job: { kind: FileKind | 'prepare'; bytes: number }) => void;
}

export const EXTRACTION_DEFAULTS = { timeoutMs: 20_000, memoryMb: 512 } as const;

const MB = 1024 * 1024;
/** How often resident memory is sampled while files are read. */
const MEMORY_SAMPLE_MS = 200;

interface Job {
  task: ExtractTask;
  resolve: (result: ExtractedText | PreparedText) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Set once the worker has loaded its converters: the job's clock starts then. */
  ready: boolean;
  running?: Job & { id: number; timer?: NodeJS.Timeout; rssAtStart?: number };
}

/**
 * How to start a worker: the compiled extract-worker.js next to this file; or, when running from
 * the TypeScript sources (vitest, tsx — both dev setups, where tsx is installed), the .ts entry
 * through tsx's require hook (Node 20 applies no ESM loader hooks inside a worker thread).
 */
function workerEntry(): { code: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) {
    return { code: new URL('./extract-worker.js', import.meta.url), eval: false };
  }
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const entry = fileURLToPath(new URL('./extract-worker.ts', import.meta.url));
  return {
    code: `require(${JSON.stringify(tsx)}).require(${JSON.stringify(entry)}, __filename);`,
    eval: true,
  };
}

export class ExtractionPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly workers: number;
  private readonly timeoutMs: number;
  private readonly memoryMb: number;
  private nextId = 0;
  private memoryWatch: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: ExtractionPoolOptions = {}) {
    this.workers = options.workers ?? Math.min(4, Math.max(1, availableParallelism()));
    this.timeoutMs = options.timeoutMs ?? EXTRACTION_DEFAULTS.timeoutMs;
    this.memoryMb = options.memoryMb ?? EXTRACTION_DEFAULTS.memoryMb;
  }

  /** Converts a file in a worker; the signature of extract.ts's convertFile. */
  readonly convert = (
    kind: FileKind,
    bytes: Uint8Array,
    maxTextBytes: number,
  ): Promise<ExtractedText> =>
    this.run({ type: 'convert', kind, bytes, maxTextBytes }) as Promise<ExtractedText>;

  /** Reads a text as Markdown and cuts it into chunks in a worker, within the same limits. */
  readonly prepare = (text: string): Promise<PreparedText> =>
    this.run({ type: 'prepare', text }) as Promise<PreparedText>;

  private run(task: ExtractTask): Promise<ExtractedText | PreparedText> {
    if (this.closed) return Promise.reject(new Error('text extraction has been closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  /** Workers alive now (idle or busy). */
  get size(): number {
    return this.slots.length;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.running === undefined);
      if (slot === undefined) {
        if (this.slots.length >= this.workers) return;
        try {
          slot = this.spawn();
        } catch (error) {
          this.queue.shift()?.reject(error as Error);
          continue;
        }
      }
      this.start(slot, this.queue.shift() as Job);
    }
  }

  private spawn(): Slot {
    const entry = workerEntry();
    const worker = new Worker(entry.code, {
      eval: entry.eval,
      execArgv: entry.eval ? [] : undefined,
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb },
    });
    const slot: Slot = { worker, ready: false };
    worker.unref();
    worker.on('message', (message: WorkerMessage) => {
      if (message !== 'ready') return this.settle(slot, message);
      slot.ready = true;
      if (slot.running !== undefined) this.send(slot);
    });
    worker.on('error', (error: Error & { code?: string }) =>
      this.retire(
        slot,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? this.outOfMemory()
          : new Error(`extraction failed: ${error.message}`),
      ),
    );
    worker.on('exit', () => this.retire(slot, new Error('extraction failed: the worker stopped')));
    this.slots.push(slot);
    return slot;
  }

  private outOfMemory(): ExtractionLimitError {
    return new ExtractionLimitError(`extraction needed more than ${this.memoryMb} MB of memory`);
  }

  /** Samples resident memory while files are read (see the note at the top). */
  private watchMemory(): void {
    if (this.memoryWatch !== undefined) return;
    this.memoryWatch = setInterval(() => {
      let first: { slot: Slot; rss: number } | undefined;
      for (const slot of this.slots) {
        const rss = slot.running?.rssAtStart;
        if (rss !== undefined && (first === undefined || rss < first.rss)) first = { slot, rss };
      }
      if (first === undefined) {
        clearInterval(this.memoryWatch);
        this.memoryWatch = undefined;
        return;
      }
      // Growth is charged to the file that started lowest: the one under which it grew most.
      const grown = process.memoryUsage.rss() - first.rss;
      if (grown > 2 * this.memoryMb * MB) this.retire(first.slot, this.outOfMemory());
    }, MEMORY_SAMPLE_MS);
    this.memoryWatch.unref();
  }

  private start(slot: Slot, job: Job): void {
    slot.running = { ...job, id: ++this.nextId };
    slot.worker.ref();
    if (slot.ready) this.send(slot);
  }

  /** Hands the slot's job to its (ready) worker and starts the job's clock. */
  private send(slot: Slot): void {
    const job = slot.running as NonNullable<Slot['running']>;
    job.timer = setTimeout(
      () =>
        this.retire(
          slot,
          new ExtractionLimitError(
            `${job.task.type === 'prepare' ? 'reading the text' : 'extraction'} took longer than ${this.timeoutMs / 1000} s`,
          ),
        ),
      this.timeoutMs,
    );
    job.rssAtStart = process.memoryUsage.rss();
    const { task } = job;
    if (task.type === 'convert') {
      // A copy goes over (transferred): the caller keeps its bytes.
      const bytes = new Uint8Array(task.bytes);
      const message: ExtractJob = { ...task, id: job.id, bytes };
      slot.worker.postMessage(message, [bytes.buffer]);
      this.options.onJobStart?.({ kind: task.kind, bytes: bytes.byteLength });
    } else {
      slot.worker.postMessage({ ...task, id: job.id } satisfies ExtractJob);
      this.options.onJobStart?.({ kind: 'prepare', bytes: Buffer.byteLength(task.text) });
    }
    this.watchMemory();
  }

  private settle(slot: Slot, reply: ExtractReply): void {
    const job = slot.running;
    if (job === undefined || job.id !== reply.id) return;
    clearTimeout(job.timer);
    slot.running = undefined;
    slot.worker.unref();
    // A worker that grew the process by more than its heap may sit on that memory (buffers
    // not yet collected) while idle: it is not kept.
    const grown = process.memoryUsage.rss() - (job.rssAtStart ?? 0);
    if (grown > this.memoryMb * MB) this.retire(slot, new Error('worker recycled'));
    if (reply.ok) {
      job.resolve(reply.result);
    } else {
      job.reject(reply.limit ? new ExtractionLimitError(reply.message) : new Error(reply.message));
    }
    this.dispatch();
  }

  /** Ends a worker (timed out, out of memory, crashed): its file fails, the next gets a new one. */
  private retire(slot: Slot, reason: Error): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    const job = slot.running;
    slot.running = undefined;
    if (job !== undefined) {
      clearTimeout(job.timer);
      job.reject(reason);
    }
    void slot.worker.terminate();
    if (!this.closed) this.dispatch();
  }

  /** Fails the files still waiting or running and terminates every worker. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.memoryWatch);
    const reason = new Error('text extraction has been closed');
    for (const job of this.queue.splice(0)) job.reject(reason);
    const workers = this.slots.map((slot) => slot.worker);
    for (const slot of [...this.slots]) this.retire(slot, reason);
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
