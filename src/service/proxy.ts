// The standard proxy variables for calls to a remote service: HTTPS_PROXY / HTTP_PROXY (either
// case, the lower-case one first, as undici reads them) and NO_PROXY. Read from the `env` given,
// not process.env, so whoever builds the client decides; undici's EnvHttpProxyAgent does the rest.
import { CodedError, ErrorCode } from '../errors.js';
import type { ProxySettings } from './dispatchers.js';

// What undici's ProxyAgent can speak to (socks: its Socks5ProxyAgent).
const PROXY_PROTOCOLS = new Set(['http:', 'https:', 'socks5:', 'socks:']);

/** The variable's value and the spelling it was found under (lower case first). */
function pick(env: NodeJS.ProcessEnv, name: string): { value: string; from: string } | undefined {
  const from = env[name.toLowerCase()] !== undefined ? name.toLowerCase() : name;
  const value = env[from]?.trim();
  return value === undefined || value === '' ? undefined : { value, from };
}

/**
 * A proxy address as undici takes it. Without a scheme it is http, as curl and Go read these
 * variables ("proxy.corp:3128"). The error names the variable but never repeats the value: it
 * may carry the proxy's password.
 */
function proxyUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const found = pick(env, name);
  if (found === undefined) return undefined;
  const { value, from } = found;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL | undefined;
  try {
    url = new URL(withScheme);
  } catch {
    url = undefined;
  }
  if (!url || !PROXY_PROTOCOLS.has(url.protocol) || url.hostname === '') {
    throw new CodedError(
      ErrorCode.ConfigInvalid,
      `${from}: must be a proxy address such as http://proxy.example:3128 (http, https or socks5)`,
    );
  }
  return withScheme;
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
