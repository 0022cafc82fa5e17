// The standard proxy variables for calls to a remote service: HTTPS_PROXY / HTTP_PROXY (either
// case, the lower-case one first, as undici reads them) and NO_PROXY. Read from the `env` given,
// not process.env, so whoever builds the client decides; undici's EnvHttpProxyAgent does the rest.
import type { ProxySettings } from './dispatchers.js';

function pick(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The proxy settings in `env`, or undefined when no proxy is set. */
export function proxyFromEnv(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const httpProxy = pick(env, 'HTTP_PROXY');
  const httpsProxy = pick(env, 'HTTPS_PROXY');
  if (httpProxy === undefined && httpsProxy === undefined) return undefined;
  const noProxy = pick(env, 'NO_PROXY');
  return {
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(noProxy ? { noProxy } : {}),
  };
}
