// The undici dispatchers the client sends through: one for ordinary calls (a keep-alive pool of
// `connections` per origin) and one for answer streams with no cap on connections, because an
// answer holds its connection for as long as it is written and must never queue behind others.
// Proxies are undici's EnvHttpProxyAgent; extra certificate authorities its `connect.ca`.
import { rootCertificates } from 'node:tls';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';

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
  });
}

/** Node's `ca` option replaces the well-known authorities; extra ones must come on top. */
function withRootCertificates(ca: string | string[]): string[] {
  return [...rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}
