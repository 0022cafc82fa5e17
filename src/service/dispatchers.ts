// The undici dispatchers the client sends through: one for ordinary calls (a keep-alive pool of
// `connections` per origin) and one for answer streams with no cap on connections, because an
// answer holds its connection for as long as it is written and must never queue behind others.
// Proxies are undici's EnvHttpProxyAgent; extra certificate authorities its `connect.ca`.
import type { Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, buildConnector, Client, EnvHttpProxyAgent, Pool, type Dispatcher } from 'undici';

/** The proxy variables' values, in the form undici's EnvHttpProxyAgent takes them. */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

export interface DispatcherConfig {
  connectMs: number;
  /** Extra trusted certificate authorities (PEM) for https. */
  ca?: string | string[] | undefined;
  proxy?: ProxySettings | undefined;
  /**
   * Told of every connection the dispatcher opens. A WebSocket's connection leaves the pool at
   * its upgrade, so closing the dispatcher does not reach it: its owner ends it with this.
   */
  onSocket?: ((socket: Socket) => void) | undefined;
}

// Below common server idle timeouts (Node's 5 s), so we rarely reuse a socket the server is
// closing: a POST sent on one could not be retried safely.
const KEEP_ALIVE_MS = 4_000;

/** `connections`: undefined for no cap (the answer streams' dispatcher). */
export function createDispatcher(config: DispatcherConfig, connections?: number): Dispatcher {
  const tls = config.ca ? { ca: withRootCertificates(config.ca) } : {};
  const options = {
    ...(connections === undefined ? {} : { connections }),
    keepAliveTimeout: KEEP_ALIVE_MS,
    connect: { timeout: config.connectMs, ...tls },
    ...(config.onSocket ? { factory: watchingFactory(config.onSocket) } : {}),
  };
  if (!config.proxy) return new Agent(options);
  const { httpProxy, httpsProxy, noProxy } = config.proxy;
  return new EnvHttpProxyAgent({
    ...options,
    // Through a tunnel, the service's own TLS takes its authorities from `requestTls`.
    requestTls: tls,
    // Empty strings, never undefined: undici would read process.env behind the caller's back.
    httpProxy: httpProxy ?? '',
    httpsProxy: httpsProxy ?? '',
    noProxy: noProxy ?? '',
    clientFactory: proxyClient,
  } as EnvHttpProxyAgent.Options);
}

type ConnectTunnel = (options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;

/**
 * The pool to the proxy itself. When a proxy closes the connection before it answers CONNECT (a
 * rule that drops the target, a proxy restarting), undici 7 opens the tunnel again at once and
 * for ever: its client fails waiting requests on any connect error but a socket error
 * (nodejs/undici#3897, fixed in undici 8, which needs Node 22). The request never settles and
 * the proxy sees thousands of connections a second. Here that close fails the request as a
 * reset connection, like a CONNECT the proxy refused (403, 407).
 */
function proxyClient(origin: URL, options: object): Dispatcher {
  const pool = new Pool(origin, options);
  const connect = pool.connect.bind(pool) as ConnectTunnel;
  const tunnel: ConnectTunnel = async (connectOptions) => {
    try {
      return await connect(connectOptions);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'UND_ERR_SOCKET') throw error;
      // A reset, as callers know one (retried where a reset is: the service client, discord.js).
      throw Object.assign(
        new Error('the proxy closed the connection before answering CONNECT', { cause: error }),
        { code: 'ECONNRESET' },
      );
    }
  };
  return Object.assign(pool, { connect: tunnel });
}

/**
 * undici's own per-origin factory (a Client for one connection, else a Pool) with a connector
 * that reports each socket it makes: the plain one built from `connect`'s options, or the
 * tunnel's that a ProxyAgent hands its origins.
 */
function watchingFactory(onSocket: (socket: Socket) => void) {
  return (origin: string | URL, options: object): Dispatcher => {
    const { connect } = options as {
      connect?: buildConnector.connector | buildConnector.BuildOptions;
    };
    const base = typeof connect === 'function' ? connect : buildConnector(connect ?? {});
    const watched: buildConnector.connector = (connectOptions, callback) =>
      base(connectOptions, (...result) => {
        const [error, socket] = result;
        if (!error && socket) onSocket(socket);
        callback(...result);
      });
    const withWatched = { ...options, connect: watched };
    return (options as { connections?: number }).connections === 1
      ? new Client(origin, withWatched)
      : new Pool(origin, withWatched);
  };
}

/** Node's `ca` option replaces the well-known authorities; extra ones must come on top. */
function withRootCertificates(ca: string | string[]): string[] {
  return [...rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}
