// Opens keyv namespaces on one store URL: memory://, sqlite://path, redis://… (or rediss://).
// Shared by the bridge's state and the local service's storage.
//
// Redis: one connection is opened and checked up front, so an unreachable server fails here
// with a clear error within connectTimeoutMs instead of hanging; once connected, a dropped
// connection is retried with backoff, and commands issued while it is down fail at once
// (no offline queue) rather than piling up. The URL never reaches a log line or an error
// unmasked.
import pTimeout from 'p-timeout';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type KeyvRedis from '@keyv/redis';
import { Keyv, type KeyvStoreAdapter } from 'keyv';
import type { RedisClientType } from 'redis';
import type { Logger } from '../log.js';
import type { Database } from '../sqlite.js';
import { KeyvSqlite, openSqliteFile } from './sqlite-store.js';

export type StoreKind = 'memory' | 'sqlite' | 'redis';

/**
 * A connected node-redis client (the `redis` v5 package), named by its type rather than as
 * `ReturnType<typeof createClient>`: relating the generic createClient to a function type cost
 * the type checker ~10 s a run (variance of its deeply generic command maps).
 */
export type RedisClient = RedisClientType;

export interface KeyvStore {
  readonly kind: StoreKind;
  /** The URL with any password masked, for logs. */
  readonly displayUrl: string;
  /** A keyv for one namespace; the same instance for the same name. */
  namespace<V = unknown>(name: string): Keyv<V>;
  /**
   * The raw Redis connection behind the namespaces (kind 'redis' only), for what keyv cannot
   * do atomically (SET NX, Lua scripts). Closed by close().
   */
  readonly redis?: RedisClient;
  /** The SQLite connection behind the namespaces (kind 'sqlite' only), for tables of its own. */
  readonly sqlite?: Database;
  close(): Promise<void>;
}

export interface KeyvStoreOptions {
  /** Redis only: how long the first connection may take before opening fails. Default 5 s. */
  connectTimeoutMs?: number;
  /** Store errors after opening (a dropped Redis connection) are logged here, URL masked. */
  logger?: Pick<Logger, 'warn'>;
}

export function storeKind(url: string): StoreKind {
  const scheme = url.slice(0, Math.max(0, url.indexOf(':'))).toLowerCase();
  if (scheme === 'memory') return 'memory';
  if (scheme === 'sqlite') return 'sqlite';
  if (scheme === 'redis' || scheme === 'rediss') return 'redis';
  throw new Error(
    `store URL "${maskUrl(url)}": must start with memory://, sqlite:// or redis:// (rediss://)`,
  );
}

/** Masks the password of a URL, and of any URL quoted inside a longer text. */
export function maskUrl(url: string): string {
  return url.replace(/\/\/([^:@/\s]*):([^@/\s]*)@/g, '//$1:***@');
}

/** sqlite://data/x.sqlite and sqlite:///abs/x.sqlite → a file path (folders created). */
function sqlitePath(url: string): string {
  const rest = url.replace(/^sqlite:\/\//i, '');
  if (rest === '' || rest === ':memory:') return ':memory:';
  const path = resolve(rest);
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

/** Connects to Redis or throws a clear error (URL masked) within timeoutMs. */
async function connectRedis(
  url: string,
  timeoutMs: number,
  logger: KeyvStoreOptions['logger'],
): Promise<RedisClient> {
  const displayUrl = maskUrl(url);
  let connectedOnce = false;
  // Loaded only for a Redis store: node-redis is some 600 modules, and memory or SQLite stores
  // (the CLI, tests, the embedded default) would pay for them at every start.
  const { createClient } = await import('redis');
  // Through `unknown`, not related structurally: see RedisClient.
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: timeoutMs,
      // Before the first connection: give up at once, so opening fails fast. After it: retry
      // with capped exponential backoff, because a restarting Redis should not kill the app.
      reconnectStrategy: (retries: number, cause: Error) =>
        connectedOnce ? Math.min(100 * 2 ** retries, 2_000) : cause,
    },
  }) as unknown as RedisClient;
  // Every keyv namespace's adapter listens for errors on this one shared client.
  client.setMaxListeners(0);
  // node-redis emits 'error' on every failed (re)connect; without a listener it would crash.
  client.on('error', (err: unknown) => {
    if (connectedOnce) {
      logger?.warn({ store: displayUrl, error: maskUrl(String(err)) }, 'redis connection error');
    }
  });
  try {
    // Typed as a bare promise: inferring p-timeout's value type from the client's own type
    // (its deeply generic command maps) cost the type check some 2 s a run.
    const connected: Promise<unknown> = client.connect();
    await pTimeout(connected, {
      milliseconds: timeoutMs,
      message: `no answer within ${timeoutMs} ms`,
    });
    await client.ping();
    connectedOnce = true;
    return client;
  } catch (err) {
    if (client.isOpen) client.destroy();
    const reason = maskUrl(err instanceof Error ? err.message : String(err));
    throw new Error(`store URL "${displayUrl}": cannot connect to Redis: ${reason}`);
  }
}

/**
 * Opens a store. Each namespace gets its own adapter, because keyv writes the namespace onto
 * the adapter it is given and a shared adapter would mix them up. On Redis the adapters share
 * one connection. Store errors throw (keyv would otherwise answer "not found" on a failure).
 */
export async function openKeyvStore(
  url: string,
  options: KeyvStoreOptions = {},
): Promise<KeyvStore> {
  const kind = storeKind(url);
  const displayUrl = maskUrl(url);
  const redis =
    kind === 'redis'
      ? await connectRedis(url, options.connectTimeoutMs ?? 5_000, options.logger)
      : undefined;
  const RedisAdapter: typeof KeyvRedis | undefined = redis
    ? (await import('@keyv/redis')).default
    : undefined;
  // SQLite: one connection for all namespaces, opened on first use (inside the probe below,
  // so a bad path fails there).
  let sqlite: ReturnType<typeof openSqliteFile> | undefined;
  const adapterFor = (): KeyvStoreAdapter | Map<string, unknown> => {
    if (redis && RedisAdapter) {
      const client = redis as unknown as ConstructorParameters<typeof KeyvRedis>[0];
      return new RedisAdapter(client, { throwOnErrors: true }) as unknown as KeyvStoreAdapter;
    }
    if (kind === 'sqlite')
      return new KeyvSqlite((sqlite ??= openSqliteFile(sqlitePath(url), 10_000)));
    return new Map();
  };
  const spaces = new Map<string, Keyv>();
  const open = (name: string): Keyv => {
    const space = new Keyv({ store: adapterFor(), namespace: name, throwOnErrors: true });
    spaces.set(name, space);
    return space;
  };
  // Touch the store once so a bad path fails here, not at first use.
  try {
    await open('__probe').get('probe');
  } catch (err) {
    if (redis?.isOpen) redis.destroy();
    sqlite?.close();
    const reason = maskUrl(err instanceof Error ? err.message : String(err));
    throw new Error(`store URL "${displayUrl}": cannot open: ${reason}`);
  }
  let closed = false;
  return {
    kind,
    displayUrl,
    ...(redis ? { redis } : {}),
    ...(sqlite ? { sqlite } : {}),
    namespace<V>(name: string): Keyv<V> {
      if (closed) throw new Error(`store "${displayUrl}" is closed`);
      return (spaces.get(name) ?? open(name)) as Keyv<V>;
    },
    async close() {
      if (closed) return;
      closed = true;
      // The Redis adapters share one connection: close it once, not once per namespace.
      if (redis) await redis.close().catch(() => redis.destroy());
      else await Promise.all([...spaces.values()].map((space) => space.disconnect()));
      sqlite?.close();
      spaces.clear();
    },
  };
}
