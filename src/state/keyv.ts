// Opens keyv namespaces on one store URL: memory://, sqlite://path, redis://… (or rediss://).
// Shared by the bridge's state and the local service's storage.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import KeyvRedis from '@keyv/redis';
import { KeyvSqlite } from '@keyv/sqlite';
import { Keyv, type KeyvStoreAdapter } from 'keyv';

export type StoreKind = 'memory' | 'sqlite' | 'redis';

export interface KeyvStore {
  readonly kind: StoreKind;
  /** The URL with any password masked, for logs. */
  readonly displayUrl: string;
  /** A keyv for one namespace; the same instance for the same name. */
  namespace<V = unknown>(name: string): Keyv<V>;
  close(): Promise<void>;
}

export function storeKind(url: string): StoreKind {
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  if (scheme === 'memory') return 'memory';
  if (scheme === 'sqlite') return 'sqlite';
  if (scheme === 'redis' || scheme === 'rediss') return 'redis';
  throw new Error(
    `store URL "${maskUrl(url)}": must start with memory://, sqlite:// or redis:// (rediss://)`,
  );
}

export function maskUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):([^@/]*)@/, '//$1:***@');
}

/** sqlite://data/x.sqlite and sqlite:///abs/x.sqlite → a file path (folders created). */
function sqlitePath(url: string): string {
  const rest = url.replace(/^sqlite:\/\//i, '');
  if (rest === '' || rest === ':memory:') return ':memory:';
  const path = resolve(rest);
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

function adapterFor(kind: StoreKind, url: string): KeyvStoreAdapter | Map<string, unknown> {
  if (kind === 'memory') return new Map();
  if (kind === 'sqlite') {
    return new KeyvSqlite({ uri: `sqlite://${sqlitePath(url)}`, busyTimeout: 10_000 });
  }
  return new KeyvRedis(url) as unknown as KeyvStoreAdapter;
}

/**
 * Opens a store. Each namespace gets its own adapter, because keyv writes the namespace onto
 * the adapter it is given and a shared adapter would mix them up.
 */
export async function openKeyvStore(url: string): Promise<KeyvStore> {
  const kind = storeKind(url);
  const spaces = new Map<string, Keyv>();
  const open = (name: string): Keyv => {
    const space = new Keyv({ store: adapterFor(kind, url), namespace: name });
    spaces.set(name, space);
    return space;
  };
  // Touch the store once so a bad path or an unreachable Redis fails here, not at first use.
  await open('__probe').get('probe');
  return {
    kind,
    displayUrl: maskUrl(url),
    namespace<V>(name: string): Keyv<V> {
      return (spaces.get(name) ?? open(name)) as Keyv<V>;
    },
    async close() {
      await Promise.all([...spaces.values()].map((space) => space.disconnect()));
      spaces.clear();
    },
  };
}
