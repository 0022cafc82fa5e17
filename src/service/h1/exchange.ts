// One request and its response on a Connection: writes the request, reads the head (skipping
// 1xx), then feeds the body to a TextBody one network read at a time, de-chunked in place.
// When the body ends cleanly on a reusable connection, the connection goes back to the pool.
import type { CallScope } from '../scope.js';
import { TextBody } from '../stream.js';
import { ChunkedDecoder, ChunkedError } from './chunked.js';
import { transportError } from '../transport-error.js';
import type { Connection, ConnectionOwner } from './connection.js';
import { CLOSED_EARLY_CODE, H1ProtocolError, codedError } from './errors.js';
import {
  HeadError,
  MAX_HEAD_BYTES,
  headEnd,
  parseHead,
  type Headers,
  type ResponseHead,
} from './head.js';

export interface H1Request {
  method: string;
  /** Path and query, already encoded. */
  target: string;
  /** Header fields, names in lower case, values checked by the caller (no CR or LF). */
  headers: Record<string, string>;
  body?: string;
}

export interface H1Response {
  status: number;
  headers: Headers;
  body: TextBody;
}

/** What the exchange tells its pool when it is over. */
export interface ExchangeEnd {
  /** The connection may carry another request. */
  reusable: boolean;
  keepAliveSeconds?: number;
}

export function serializeRequest(request: H1Request, host: string): string {
  let head = `${request.method} ${request.target} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(request.headers)) head += `${name}: ${value}\r\n`;
  const body = request.body ?? '';
  if (body !== '' || request.method === 'POST') {
    head += `content-length: ${Buffer.byteLength(body)}\r\n`;
  }
  return `${head}\r\n${body}`;
}

export class Exchange implements ConnectionOwner {
  private pendingHead: Buffer | undefined;
  private head: ResponseHead | undefined;
  private body: TextBody | undefined;
  private chunked: ChunkedDecoder | undefined;
  private remaining = 0;
  private over = false;
  private method = 'POST';

  constructor(
    private readonly connection: Connection,
    private readonly scope: CallScope,
    private readonly respond: (response: H1Response) => void,
    private readonly reject: (error: unknown) => void,
    private readonly onEnd: (end: ExchangeEnd) => void,
  ) {}

  start(request: H1Request, host: string): void {
    this.method = request.method;
    if (this.scope.aborted) {
      this.abandon(this.scope.reason);
      return;
    }
    this.scope.signal.addEventListener('abort', this.onAbort, { once: true });
    if (!this.connection.usable) {
      // It closed between opening (or leaving the idle pool) and now: nothing was sent.
      this.abandon(codedError('the connection closed before the request', CLOSED_EARLY_CODE));
      return;
    }
    this.connection.adopt(this);
    this.connection.socket.ref();
    this.connection.socket.write(serializeRequest(request, host));
  }

  bytes(chunk: Buffer): void {
    if (this.over) return;
    try {
      if (this.head) this.feed(chunk);
      else this.readHead(chunk);
    } catch (error) {
      const known = error instanceof HeadError || error instanceof ChunkedError;
      this.abandon(known ? new H1ProtocolError(error.message) : error);
    }
  }

  ended(): void {
    this.closed(undefined);
  }

  closed(error: Error | undefined): void {
    if (this.over) return;
    if (error === undefined && this.head?.framing.kind === 'close') this.complete(false);
    else {
      this.abandon(
        error ?? codedError('the service closed the connection early', CLOSED_EARLY_CODE),
      );
    }
  }

  private readHead(chunk: Buffer): void {
    const bytes = this.pendingHead ? Buffer.concat([this.pendingHead, chunk]) : chunk;
    const end = headEnd(bytes);
    if ((end < 0 ? bytes.length : end) > MAX_HEAD_BYTES) {
      throw new HeadError(`larger than ${MAX_HEAD_BYTES} bytes`);
    }
    if (end < 0) {
      // The read buffer is reused after this call: keep a copy of the head so far.
      this.pendingHead = Buffer.from(bytes);
      return;
    }
    this.pendingHead = undefined;
    const head = parseHead(bytes.subarray(0, end), this.method);
    const rest = bytes.subarray(end);
    if (head.status === 101) throw new HeadError('101 Switching Protocols was not asked for');
    if (head.status < 200) {
      // 100 Continue, 103 Early Hints: the real response follows.
      if (rest.length > 0) this.readHead(rest);
      return;
    }
    this.begin(head, rest.length);
    if (rest.length > 0 && !this.over) this.feed(rest);
  }

  /** `following`: bytes after the head in this read (a bodiless response must have none). */
  private begin(head: ResponseHead, following: number): void {
    this.head = head;
    const socket = this.connection.socket;
    // Once the body is over, the socket may already serve another exchange: hands off.
    this.body = new TextBody(this.scope, {
      pause: () => {
        if (!this.over) socket.pause();
      },
      resume: () => {
        if (!this.over) socket.resume();
      },
      abort: () => this.abandon(undefined),
    });
    if (head.framing.kind === 'chunked') this.chunked = new ChunkedDecoder();
    if (head.framing.kind === 'length') this.remaining = head.framing.bytes;
    this.respond({ status: head.status, headers: head.headers, body: this.body });
    if (head.framing.kind === 'none' || (head.framing.kind === 'length' && this.remaining === 0)) {
      // Bytes after a bodiless response are a response nobody asked for: do not reuse.
      this.complete(head.keepAlive && following === 0);
    }
  }

  private feed(chunk: Buffer): void {
    const framing = this.head!.framing;
    if (framing.kind === 'chunked') {
      let decoded: { payload: number; consumed: number };
      try {
        decoded = this.chunked!.decode(chunk);
      } catch (error) {
        // The frames before the broken one are good text: the caller gets them as partial text.
        if (error instanceof ChunkedError) this.body!.pushRead(chunk.subarray(0, error.payload));
        throw error;
      }
      const { payload, consumed } = decoded;
      if (payload > 0) this.body!.pushRead(chunk.subarray(0, payload));
      // Bytes after the end would be a pipelined response we never asked for.
      if (this.chunked!.done) this.complete(this.head!.keepAlive && consumed === chunk.length);
      return;
    }
    if (framing.kind === 'length') {
      const take = Math.min(this.remaining, chunk.length);
      this.remaining -= take;
      this.body!.pushRead(chunk.subarray(0, take));
      if (this.remaining === 0) this.complete(this.head!.keepAlive && take === chunk.length);
      return;
    }
    if (framing.kind === 'close') this.body!.pushRead(chunk);
    else this.complete(false); // a body where none may be
  }

  private complete(reusable: boolean): void {
    if (this.over) return;
    this.finish();
    const end: ExchangeEnd = { reusable: reusable && this.connection.usable };
    if (this.head?.keepAliveSeconds !== undefined)
      end.keepAliveSeconds = this.head.keepAliveSeconds;
    if (!end.reusable) this.connection.destroy();
    // A consumer's backpressure may have paused it; idle, it must read to notice the server close.
    else this.connection.socket.resume();
    this.onEnd(end);
    this.body?.end();
  }

  /** Ends the exchange without a clean body end: `error` goes to the caller (none: cancelled). */
  private abandon(error: unknown): void {
    if (this.over) return;
    this.finish();
    this.connection.destroy();
    this.onEnd({ reusable: false });
    const reason = transportError(error, this.scope);
    if (this.body) this.body.fail(reason);
    else this.reject(reason);
  }

  private finish(): void {
    this.over = true;
    this.connection.adopt(undefined);
    this.scope.signal.removeEventListener('abort', this.onAbort);
  }

  private readonly onAbort = (): void => this.abandon(this.scope.reason);
}
