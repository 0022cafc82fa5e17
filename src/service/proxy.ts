// The standard proxy variables for calls to a remote service: HTTPS_PROXY / HTTP_PROXY (either
// case, the lower-case one first, as undici reads them) and NO_PROXY. Read from the `env` given,
// not process.env, so whoever builds the client decides; undici's EnvHttpProxyAgent does the rest.
import { CodedError, ErrorCode } from '../errors.js';
import type { ProxySettings } from './dispatchers.js';

// What undici's ProxyAgent can speak to (socks: its Socks5ProxyAgent).
const PROXY_PROTOCOLS = new Set(['http:', 'https:', 'socks5:', 'socks:']);

/**
 * The variable's value and the spelling it was found under: lower case first, as undici and curl
 * read them; a blank one counts as unset, so `https_proxy=` (a compose file passing on a
 * variable its host does not have) does not hide `HTTPS_PROXY`.
 */
function pick(env: NodeJS.ProcessEnv, name: string): { value: string; from: string } | undefined {
  for (const from of [name.toLowerCase(), name]) {
    const value = env[from]?.trim();
    if (value) return { value, from };
  }
  return undefined;
}

/**
 * A proxy address as undici takes it. Without a scheme it is http, as curl and Go read these
 * variables ("proxy.corp:3128"); socks5h is socks5 (undici hands the proxy the host name). The error names the variable but never repeats the value: it
 * may carry the proxy's password.
 */
function proxyUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const found = pick(env, name);
  if (found === undefined) return undefined;
  const { value, from } = found;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL | undefined;
  try {
    url = new URL(withScheme.replace(/^socks5h:/i, 'socks5:'));
  } catch {
    url = undefined;
  }
  // A proxy is an address: a path, query or fragment means a typo (undici refuses them later,
  // naming nothing).
  const addressOnly =
    url && (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash;
  if (!url || !PROXY_PROTOCOLS.has(url.protocol) || url.hostname === '' || !addressOnly) {
    throw new CodedError(
      ErrorCode.ConfigInvalid,
      `${from}: must be a proxy address such as http://proxy.example:3128 (http, https or socks5)`,
    );
  }
  return url.href.replace(/\/$/, '');
}

/** The proxy settings in `env`, or undefined when no proxy is set; throws on a broken one. */
export function proxyFromEnv(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const httpProxy = proxyUrl(env, 'HTTP_PROXY');
  const httpsProxy = proxyUrl(env, 'HTTPS_PROXY');
  if (httpProxy === undefined && httpsProxy === undefined) return undefined;
  const noProxy = pick(env, 'NO_PROXY')?.value;
  return {
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(noProxy ? { noProxy } : {}),
  };
}
