// Reads a response body as raw UTF-8 text, piece by piece, exactly as sent: a streaming
// TextDecoder (a character split across chunks survives), nothing trimmed, split or parsed,
// whitespace-only pieces kept. Everything undici hands over within one network read becomes
// one piece, handed on as soon as that read is done; pieces are never joined across reads.
import type { Readable } from 'node:stream';
import type { AnswerStream } from './api.js';
import { ServiceError } from './errors.js';
import { withPartialText, type CallScope } from './scope.js';

/** Pause the socket when this much text waits for a slow consumer. */
const HIGH_WATER_CHARS = 1 << 20;

type Waiter = {
  resolve: (result: IteratorResult<string>) => void;
  reject: (error: unknown) => void;
};

export class TextBody implements AnswerStream {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly queue: string[] = [];
  private queuedChars = 0;
  private bytesOfThisRead: Buffer[] = [];
  private flushScheduled = false;
  private waiter: Waiter | undefined;
  private finished = false;
  private failure: unknown;
  private paused = false;
  private text = '';
  private onSettle: (() => void) | undefined;

  constructor(
    private readonly body: Readable,
    private readonly scope: CallScope,
    /** Maps a transport error (reset, abort) to what the consumer should see. */
    private readonly mapError: (error: unknown) => unknown,
  ) {
    body.on('data', (chunk: Buffer) => {
      this.bytesOfThisRead.push(chunk);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Runs once undici has parsed the whole network read: one piece per read.
        queueMicrotask(this.flushRead);
      }
    });
    body.once('end', () => {
      this.flushRead();
      this.deliver(this.decoder.decode());
      this.settle();
    });
    body.on('error', (error: unknown) => {
      // Also catches the abort error that follows our own cancel(); settle() ignores it.
      this.flushRead();
      this.settle(this.mapError(error));
    });
  }

  get received(): string {
    return this.text;
  }

  /** Runs fn once the body has ended, failed or been cancelled (now, if it already has). */
  whenSettled(fn: () => void): void {
    if (this.finished) fn();
    else this.onSettle = fn;
  }

  cancel(_reason?: unknown): void {
    if (this.finished) return;
    this.body.destroy();
    this.settle();
  }

  /** The whole body as text (used for JSON and error bodies). */
  async readAll(): Promise<string> {
    for await (const _piece of this) {
      // `text` accumulates as pieces are read.
    }
    return this.text;
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => this.next(),
      return: async () => {
        // The consumer stopped early (break): close the connection.
        this.cancel();
        return { done: true, value: undefined };
      },
    };
  }

  private next(): Promise<IteratorResult<string>> {
    const piece = this.queue.shift();
    if (piece !== undefined) {
      this.queuedChars -= piece.length;
      if (this.paused && this.queuedChars < HIGH_WATER_CHARS / 2) {
        this.paused = false;
        this.scope.touch();
        this.body.resume();
      }
      return Promise.resolve({ done: false, value: piece });
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.finished) return Promise.resolve({ done: true, value: undefined });
    if (this.waiter) return Promise.reject(new Error('AnswerStream: one reader at a time'));
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private readonly flushRead = (): void => {
    this.flushScheduled = false;
    const chunks = this.bytesOfThisRead;
    if (chunks.length === 0) return;
    this.bytesOfThisRead = [];
    this.scope.touch();
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.deliver(this.decoder.decode(bytes, { stream: true }));
  };

  private deliver(piece: string): void {
    // An empty piece is half a character waiting for its other half: nothing to show yet.
    if (piece === '' || this.finished) return;
    this.text += piece;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve({ done: false, value: piece });
      return;
    }
    this.queue.push(piece);
    this.queuedChars += piece.length;
    if (!this.paused && this.queuedChars >= HIGH_WATER_CHARS) {
      this.paused = true;
      this.scope.holdPhase();
      this.body.pause();
    }
  }

  private settle(error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    // Stop the phase timer; the call's total deadline stays with the client (retries may follow).
    this.scope.holdPhase();
    this.onSettle?.();
    if (error !== undefined) {
      this.failure = error instanceof ServiceError ? withPartialText(error, this.text) : error;
    }
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    if (this.failure !== undefined) waiter.reject(this.failure);
    else waiter.resolve({ done: true, value: undefined });
  }
}
