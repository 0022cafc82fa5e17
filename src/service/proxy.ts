// The standard proxy variables for calls to a remote service: HTTPS_PROXY / HTTP_PROXY (either
// case) and NO_PROXY. Through a proxy every call, answer streams included, goes through undici.
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';

function pick(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** A dispatcher that honours the proxy variables in `env`, or undefined when none is set. */
export function proxyFromEnv(env: NodeJS.ProcessEnv): Dispatcher | undefined {
  const httpProxy = pick(env, 'HTTP_PROXY');
  const httpsProxy = pick(env, 'HTTPS_PROXY');
  if (httpProxy === undefined && httpsProxy === undefined) return undefined;
  const noProxy = pick(env, 'NO_PROXY');
  return new EnvHttpProxyAgent({
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    // An empty NO_PROXY, not undici's own read of process.env: only `env` decides.
    noProxy: noProxy ?? '',
  });
}
