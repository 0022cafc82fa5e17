// Child processes that run the file converters which a hostile file can blow up (PDF, .docx,
// HTML, CSV, JSON), so that neither its memory nor its time is the service's. Processes, not
// worker threads: V8 can abort the whole process when a worker thread reaches its heap limit
// inside an allocation that may not collect (a huge JSON.parse does; nodejs/node#47224), and
// buffers outside the V8 heap (pdfjs inflates a content stream into one) escape a worker's
// resourceLimits. Each process has a V8 heap limit (--max-old-space-size); its resident memory
// is watched while it reads a file (Linux /proc), and a file under which it grows by more than
// twice the heap is stopped; a process that grew by more than the heap is not kept. Each file
// has a wall-clock limit after which its process is killed and replaced, and the converters
// stop at the text limit. A process that dies fails only its own file. Processes are started
// on first use, kept for the next file, and hold the service open only while they work.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { PreparedText } from '../knowledge/chunk-store.js';
import { converterEntry } from './converter-entry.js';
import type { ExtractJob, ExtractReply, ExtractTask, WorkerMessage } from './extract-worker.js';
import type { ExtractedText, FileKind } from './extract.js';
import { ExtractionLimitError } from './errors.js';

export interface ExtractionPoolOptions {
  /** Converter processes at most. Default: the machine's parallelism, from 1 to 4. */
  workers?: number;
  /** Wall-clock time one file may take; its process is then killed. Default 20 000 ms. */
  timeoutMs?: number;
  /**
   * V8 heap (old generation) of each converter process, in MB; its resident memory may grow
   * by twice this while one file is read (heap and buffers). Default 512.
   */
  memoryMb?: number;
  /** Told when a file (or a text to cut, kind 'prepare') is handed to a process (tests wait for it). */
  onJobStart?: (job: { kind: FileKind | 'prepare'; bytes: number }) => void;
}

export const EXTRACTION_DEFAULTS = { timeoutMs: 20_000, memoryMb: 512 } as const;

const MB = 1024 * 1024;
/** How often resident memory is sampled while files are read. */
const MEMORY_SAMPLE_MS = 200;
/** Loading pdfjs takes about a second; a converter that cannot load in a minute is broken. */
const LOAD_TIMEOUT_MS = 60_000;
/** The tail of a process's stderr kept to tell why it died (V8 prints "heap out of memory"). */
const STDERR_KEPT = 4096;

interface Job {
  task: ExtractTask;
  resolve: (result: ExtractedText | PreparedText) => void;
  reject: (error: Error) => void;
}

interface Slot {
  child: ChildProcess;
  /** Set once the process has started and can take jobs. */
  ready: boolean;
  stderr: string;
  running?: Job & { id: number; timer?: NodeJS.Timeout; rssAtStart?: number };
}

/** Resident memory of a process in bytes, where the system tells it (Linux); else undefined. */
function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match === null ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined; // the process has just ended
  }
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

  /** Converts a file in a converter process; the signature of extract.ts's convertFile. */
  readonly convert = (
    kind: FileKind,
    bytes: Uint8Array,
    maxTextBytes: number,
  ): Promise<ExtractedText> =>
    this.run({ type: 'convert', kind, bytes, maxTextBytes }) as Promise<ExtractedText>;

  /** Reads a text as Markdown and cuts it into chunks in a converter process, within the same limits. */
  readonly prepare = (text: string): Promise<PreparedText> =>
    this.run({ type: 'prepare', text }) as Promise<PreparedText>;

  private run(task: ExtractTask): Promise<ExtractedText | PreparedText> {
    if (this.closed) return Promise.reject(new Error('text extraction has been closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  /** Converter processes alive now (idle or busy). */
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
    const entry = converterEntry();
    const child = fork(entry.path, [], {
      execArgv: [...entry.execArgv, `--max-old-space-size=${this.memoryMb}`],
      serialization: 'advanced', // Uint8Array crosses as bytes, not as a JSON object
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const slot: Slot = { child, ready: false, stderr: '' };
    this.hold(slot, false);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      slot.stderr = (slot.stderr + text).slice(-STDERR_KEPT);
    });
    child.on('message', (message: WorkerMessage) => {
      if (message === 'ready') {
        slot.ready = true;
        if (slot.running !== undefined) this.send(slot);
      } else if ('started' in message) {
        this.started(slot, message.started);
      } else {
        this.settle(slot, message);
      }
    });
    child.on('error', (error) =>
      this.retire(slot, new Error(`extraction failed: ${error.message}`)),
    );
    child.on('exit', (code, signal) => this.retire(slot, this.exitReason(slot, code, signal)));
    this.slots.push(slot);
    return slot;
  }

  /** Whether a converter keeps the service's event loop alive: only while it works. */
  private hold(slot: Slot, working: boolean): void {
    if (working) {
      slot.child.ref();
      slot.child.channel?.ref();
    } else {
      slot.child.unref();
      slot.child.channel?.unref();
    }
  }

  private exitReason(slot: Slot, code: number | null, signal: string | null): Error {
    if (/heap out of memory|Reached heap limit/i.test(slot.stderr)) return this.outOfMemory();
    return new Error(
      `extraction failed: the converter process stopped (${signal ?? `exit code ${code}`})`,
    );
  }

  private outOfMemory(): ExtractionLimitError {
    return new ExtractionLimitError(`extraction needed more than ${this.memoryMb} MB of memory`);
  }

  /** Samples each working process's resident memory (see the note at the top). */
  private watchMemory(): void {
    if (this.memoryWatch !== undefined) return;
    this.memoryWatch = setInterval(() => {
      const working = this.slots.filter((slot) => slot.running?.rssAtStart !== undefined);
      if (working.length === 0) {
        clearInterval(this.memoryWatch);
        this.memoryWatch = undefined;
        return;
      }
      for (const slot of working) {
        const grown = (residentBytes(slot.child.pid) ?? 0) - (slot.running?.rssAtStart ?? 0);
        if (grown > 2 * this.memoryMb * MB) this.retire(slot, this.outOfMemory());
      }
    }, MEMORY_SAMPLE_MS);
    this.memoryWatch.unref();
  }

  private start(slot: Slot, job: Job): void {
    slot.running = { ...job, id: ++this.nextId };
    this.hold(slot, true);
    if (slot.ready) this.send(slot);
  }

  /**
   * Hands the slot's job to its (ready) process. Loading the kind's reader is not the file's
   * time: it has its own, generous limit; the file's clock and memory baseline start when the
   * process says the job has started.
   */
  private send(slot: Slot): void {
    const job = slot.running as NonNullable<Slot['running']>;
    job.timer = setTimeout(
      () =>
        this.retire(
          slot,
          new Error(`extraction failed: the converter did not load in ${LOAD_TIMEOUT_MS / 1000} s`),
        ),
      LOAD_TIMEOUT_MS,
    );
    const { task } = job;
    slot.child.send({ ...task, id: job.id } satisfies ExtractJob);
  }

  private started(slot: Slot, id: number): void {
    const job = slot.running;
    if (job === undefined || job.id !== id) return;
    clearTimeout(job.timer);
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
    job.rssAtStart = residentBytes(slot.child.pid);
    if (job.rssAtStart !== undefined) this.watchMemory();
    const { task } = job;
    this.options.onJobStart?.(
      task.type === 'convert'
        ? { kind: task.kind, bytes: task.bytes.byteLength }
        : { kind: 'prepare', bytes: Buffer.byteLength(task.text) },
    );
  }

  private settle(slot: Slot, reply: ExtractReply): void {
    const job = slot.running;
    if (job === undefined || job.id !== reply.id) return;
    clearTimeout(job.timer);
    slot.running = undefined;
    this.hold(slot, false);
    // A process that grew by more than its heap may sit on that memory (buffers not yet
    // collected) while idle: it is not kept.
    const grown = (residentBytes(slot.child.pid) ?? 0) - (job.rssAtStart ?? 0);
    if (grown > this.memoryMb * MB) this.retire(slot, new Error('converter recycled'));
    if (reply.ok) {
      job.resolve(reply.result);
    } else {
      job.reject(reply.limit ? new ExtractionLimitError(reply.message) : new Error(reply.message));
    }
    this.dispatch();
  }

  /** Ends a process (timed out, out of memory, crashed): its file fails, the next gets a new one. */
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
    slot.child.kill('SIGKILL');
    if (!this.closed) this.dispatch();
  }

  /** Fails the files still waiting or running and ends every converter process. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.memoryWatch);
    const reason = new Error('text extraction has been closed');
    for (const job of this.queue.splice(0)) job.reject(reason);
    const ended = this.slots.map(
      (slot) =>
        new Promise<void>((resolve) => {
          if (slot.child.exitCode !== null || slot.child.signalCode !== null) return resolve();
          // Held until it has ended: an unheld child's exit may never be heard, leaving this
          // promise (and a caller's top-level await) unsettled when nothing else runs.
          slot.child.ref();
          slot.child.once('exit', () => resolve());
        }),
    );
    for (const slot of [...this.slots]) this.retire(slot, reason);
    await Promise.all(ended);
  }
}
