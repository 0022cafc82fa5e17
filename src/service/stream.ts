// Reads a response body as raw UTF-8 text, piece by piece, exactly as sent: a streaming
// decode with TextDecoder over the body's bytes (a character split across chunks survives),
// nothing trimmed, split or parsed, whitespace-only pieces kept. undici hands over one frame
// after another (`push`); the frames of one network read are grouped in a microtask into one
// piece. Pieces are never joined across reads.
import { isAscii } from 'node:buffer';
import type { AnswerStream } from './api.js';
import { ServiceError } from './errors.js';
import { withPartialText, type CallScope } from './scope.js';

/** Pause the socket when this much text waits for a slow consumer. */
export const HIGH_WATER_CHARS = 1 << 20;

/** What the body may ask of the connection underneath it. */
export interface BodyControl {
  /** Stop reading from the socket (backpressure). */
  pause(): void;
  resume(): void;
  /** Close the connection: the consumer does not want the rest. */
  abort(): void;
}

type Waiter = {
  resolve: (result: IteratorResult<string>) => void;
  reject: (error: unknown) => void;
};

/**
 * Bytes at the end of `bytes` that may start a character still waiting for its other bytes
 * (conservative: 0 only when nothing can be pending in a streaming decoder).
 */
function incompleteTail(bytes: Buffer): number {
  const end = bytes.length;
  for (let at = end - 1; at >= 0 && at >= end - 3; at--) {
    const byte = bytes[at]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needs > end - at ? end - at : 0;
  }
  return 0;
}

export class TextBody implements AnswerStream {
  private readonly decoder = new TextDecoder('utf-8');
  /** The decoder holds the first bytes of a character split across reads. */
  private decoderPending = false;
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
    private readonly scope: CallScope,
    private readonly control: BodyControl,
  ) {}

  get received(): string {
    return this.text;
  }

  /** The transport hands over the bytes of one HTTP frame (or one read of an unframed body). */
  push(chunk: Buffer): void {
    if (this.finished) return;
    this.bytesOfThisRead.push(chunk);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // Runs once the transport has parsed the whole network read: one piece per read.
      queueMicrotask(this.flushRead);
    }
  }

  /** The body ended cleanly. */
  end(): void {
    this.flushRead();
    if (this.decoderPending) this.deliver(this.decoder.decode());
    this.settle();
  }

  /** The body broke (reset, timeout, abort); `error` is what the consumer should see. */
  fail(error: unknown): void {
    // Also receives the abort error that follows our own cancel(); settle() ignores it.
    this.flushRead();
    this.settle(error);
  }

  /** Runs fn once the body has ended, failed or been cancelled (now, if it already has). */
  whenSettled(fn: () => void): void {
    if (this.finished) fn();
    else this.onSettle = fn;
  }

  cancel(_reason?: unknown): void {
    if (this.finished) return;
    this.settle();
    this.control.abort();
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
        this.control.resume();
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
    if (chunks.length === 0 || this.finished) return;
    this.bytesOfThisRead = [];
    this.scope.touch();
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.deliver(this.decode(bytes));
  };

  private decode(bytes: Buffer): string {
    // Plain ASCII with nothing pending needs no UTF-8 work: a latin1 copy is several times
    // faster than the streaming decoder on the short reads a live answer arrives in.
    if (!this.decoderPending && isAscii(bytes)) return bytes.toString('latin1');
    // A read of a few continuation bytes may leave a character begun earlier still incomplete.
    this.decoderPending = incompleteTail(bytes) > 0 || (this.decoderPending && bytes.length < 4);
    return this.decoder.decode(bytes, { stream: true });
  }

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
      this.control.pause();
    }
  }

  private settle(error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.bytesOfThisRead = [];
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
