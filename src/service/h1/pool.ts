// HTTP/1.1 for the answer stream: a keep-alive pool of connections to one origin, with no cap
// on connections in use, because an answer holds its connection for as long as it is written
// and must never wait behind other answers. Idle connections are kept a short while (below
// common server idle timeouts, so a request rarely meets a connection the server is closing),
// watched for the server closing them, and unref'd so they never keep the process alive.
import type { CallScope } from '../scope.js';
import { Connection, readBuffer, type Endpoint } from './connection.js';
import { CLIENT_CLOSED_CODE, codedError } from './errors.js';
import { Exchange, type ExchangeEnd, type H1Request, type H1Response } from './exchange.js';

export interface H1PoolConfig {
  url: URL;
  connectMs: number;
  /** Extra trusted certificate authorities for https. */
  ca?: string | string[] | undefined;
  /** Idle connections kept for reuse. */
  maxIdle: number;
  /** How long an idle connection is kept (lowered by the server's Keep-Alive timeout). */
  keepAliveMs: number;
}

export class H1Pool {
  private readonly endpoint: Endpoint;
  private readonly host: string;
  /** Idle connections and the timers that drop them, oldest first. */
  private readonly idle = new Map<Connection, NodeJS.Timeout>();
  private readonly active = new Set<Promise<void>>();
  /** Shared by every plain connection: each read is consumed before the next one lands. */
  private readonly readBuffer = readBuffer();
  private closed = false;

  constructor(private readonly config: H1PoolConfig) {
    const { url } = config;
    const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
    const port = url.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(url.port);
    this.endpoint = { protocol, hostname: url.hostname, port };
    this.host = url.host;
  }

  /** Resolves once the response head is in; the body then streams into a TextBody. */
  async request(request: H1Request, scope: CallScope): Promise<H1Response> {
    if (this.closed) throw clientClosed();
    let release!: () => void;
    // In flight from now (connecting included), so close() waits for it.
    const settled = new Promise<void>((resolve) => (release = resolve));
    this.active.add(settled);
    const done = () => {
      this.active.delete(settled);
      release();
    };
    let connection: Connection;
    try {
      connection =
        this.takeIdle() ??
        (await Connection.open(this.endpoint, this.config, this.readBuffer, scope.signal));
    } catch (error) {
      done();
      throw scope.aborted ? scope.reason : error;
    }
    // A reused connection the server closes before answering is not asked again: the server may
    // have read the question, and a POST must not be sent twice. The short idle time keeps this rare.
    return new Promise<H1Response>((resolve, reject) => {
      const onEnd = (end: ExchangeEnd) => {
        done();
        if (end.reusable) this.keep(connection, end.keepAliveSeconds);
      };
      new Exchange(connection, scope, resolve, reject, onEnd).start(request, this.host);
    });
  }

  /** Closes idle connections now and resolves once every response in flight has ended. */
  async close(): Promise<void> {
    this.closed = true;
    for (const [connection, timer] of this.idle) {
      clearTimeout(timer);
      connection.destroy();
    }
    this.idle.clear();
    await Promise.all([...this.active]);
  }

  private takeIdle(): Connection | undefined {
    // The most recently used first: the least likely to be timed out by the server.
    for (const connection of [...this.idle.keys()].reverse()) {
      clearTimeout(this.idle.get(connection));
      this.idle.delete(connection);
      if (connection.usable) return connection;
      connection.destroy();
    }
    return undefined;
  }

  private keep(connection: Connection, serverSeconds: number | undefined): void {
    // Leave a second of margin before the server's own idle timeout.
    const serverMs = serverSeconds === undefined ? Infinity : serverSeconds * 1000 - 1000;
    const keepMs = Math.min(this.config.keepAliveMs, serverMs);
    if (this.closed || this.idle.size >= this.config.maxIdle || !connection.usable || keepMs <= 0) {
      connection.destroy();
      return;
    }
    const drop = () => {
      clearTimeout(this.idle.get(connection));
      this.idle.delete(connection);
      connection.destroy();
    };
    const timer = setTimeout(drop, keepMs);
    timer.unref();
    connection.socket.unref();
    // While idle, any byte or close from the server means the connection is done.
    connection.adopt({ bytes: drop, ended: drop, closed: drop });
    this.idle.set(connection, timer);
  }
}

function clientClosed(): Error {
  return codedError('the client is closed', CLIENT_CLOSED_CODE);
}
