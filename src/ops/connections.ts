// The connections each started adapter holds (Discord: its gateway shards) as readiness checks
// of their own ("platform:discord:shard 1/2") and as the chatbridge_platform_connection_ready
// gauge. Registered after the adapters started: with DISCORD_SHARDS=auto the shards are only
// known once connected.
import type { ChatAdapter } from '../bridge/types.js';
import type { BridgeMetrics } from './metrics.js';
import type { Readiness } from './readiness.js';

export function watchConnections(
  adapters: ChatAdapter[],
  readiness: Readiness,
  metrics: Pick<BridgeMetrics, 'setConnections'>,
): void {
  for (const adapter of adapters) {
    for (const { name } of adapter.connections?.() ?? []) {
      readiness.add(
        `platform:${adapter.name}:${name}`,
        () => {
          const now = adapter.connections?.().find((c) => c.name === name);
          if (now === undefined) throw new Error('no longer held');
          if (now.notReady !== undefined) throw new Error(now.notReady);
        },
        { cacheMs: 0 },
      );
    }
  }
  metrics.setConnections(() =>
    adapters.flatMap((adapter) =>
      (adapter.connections?.() ?? []).map((c) => ({
        platform: adapter.name,
        connection: c.name,
        ready: c.notReady === undefined,
      })),
    ),
  );
}
