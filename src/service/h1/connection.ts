// One TCP or TLS connection to the service, and who is listening to it now. A plain socket
// reads into one reusable buffer (`onread`): every read is handed over synchronously and
// consumed before the next, so large answers cost no allocation per read.
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, rootCertificates } from 'node:tls';
import { CONNECT_TIMEOUT_CODE, codedError } from './errors.js';

/**
 * Reads of every plain socket of a pool land in one buffer of this size (each read is consumed
 * before the next). Large reads of a fast body decode into large strings, which V8 allocates
 * outside the young generation, so they are not copied by every scavenge.
 */
const READ_BUFFER_BYTES = 1024 * 1024;

export interface ConnectionOwner {
  /** The bytes of one read: valid only until this call returns (the buffer is reused). */
  bytes(chunk: Buffer): void;
  /** The peer finished sending (FIN). */
  ended(): void;
  /** The connection broke or was destroyed; `error` is what broke it, when known. */
  closed(error: Error | undefined): void;
}

export interface Endpoint {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
}

export class Connection {
  private owner: ConnectionOwner | undefined;
  private failure: Error | undefined;
  private isClosed = false;

  private constructor(readonly socket: Socket) {}

  /** Opens a connection; rejects on failure, after `connectMs`, or when `signal` aborts. */
  static open(
    endpoint: Endpoint,
    options: { connectMs: number; ca?: string | string[] | undefined },
    readBuffer: Buffer,
    signal: AbortSignal,
  ): Promise<Connection> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const timeoutMs = options.connectMs;
    // A bracketed IPv6 literal from URL.hostname connects without its brackets.
    const host = endpoint.hostname.replace(/^\[(.*)\]$/, '$1');
    // The read callback is fixed at connect time; it finds its connection through this holder.
    const holder: { connection?: Connection } = {};
    const onRead = (length: number) => {
      holder.connection?.owner?.bytes(readBuffer.subarray(0, length));
      return true;
    };
    const socket =
      endpoint.protocol === 'https:'
        ? connectTls({
            host,
            port: endpoint.port,
            ALPNProtocols: ['http/1.1'],
            ...(options.ca ? { ca: withRootCertificates(options.ca) } : {}),
            ...(isIP(host) === 0 ? { servername: host } : {}),
          })
        : connectTcp({
            host,
            port: endpoint.port,
            noDelay: true,
            onread: { buffer: readBuffer, callback: onRead },
          });
    const connection = new Connection(socket);
    holder.connection = connection;
    connection.listen(endpoint.protocol === 'https:');
    return new Promise<Connection>((resolve, reject) => {
      const ready = endpoint.protocol === 'https:' ? 'secureConnect' : 'connect';
      const timer = setTimeout(() => {
        socket.destroy(codedError(`connect timed out after ${timeoutMs} ms`, CONNECT_TIMEOUT_CODE));
      }, timeoutMs);
      let settled = false;
      const settle = (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        connection.owner = undefined;
        if (error === undefined) resolve(connection);
        else reject(error as Error);
      };
      // The caller gave up (abort, first-byte or total timeout): stop connecting now.
      const onAbort = () => {
        settle(signal.reason);
        socket.destroy();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      connection.owner = {
        bytes: () =>
          socket.destroy(codedError('data before a request', 'CHATBRIDGE_UNEXPECTED_DATA')),
        ended: () => {},
        closed: (error) => settle(error ?? codedError('closed while connecting', 'ECONNRESET')),
      };
      socket.once(ready, () => settle(undefined));
    });
  }

  /** True while the connection can carry a request. */
  get usable(): boolean {
    return !this.isClosed && !this.socket.destroyed && !this.socket.readableEnded;
  }

  /** Hands the connection's events to `owner` (undefined: nobody listens). */
  adopt(owner: ConnectionOwner | undefined): void {
    this.owner = owner;
  }

  destroy(error?: Error): void {
    this.socket.destroy(error);
  }

  private listen(tls: boolean): void {
    const { socket } = this;
    if (tls) socket.on('data', (chunk: Buffer) => this.owner?.bytes(chunk));
    socket.on('end', () => this.owner?.ended());
    socket.on('error', (error) => {
      this.failure ??= error;
    });
    socket.on('close', () => {
      this.isClosed = true;
      const owner = this.owner;
      this.owner = undefined;
      owner?.closed(this.failure);
    });
  }
}

/** Node's `ca` option replaces the well-known authorities; extra ones must come on top. */
export function withRootCertificates(ca: string | string[]): string[] {
  return [...rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}

export function readBuffer(): Buffer {
  return Buffer.allocUnsafe(READ_BUFFER_BYTES);
}
