// The gateway shards one discord.js client holds, named "shard 1/2", each with why it is not
// ready (for GET /readyz and the connection gauge in /metrics).
import { Status, type Client } from 'discord.js';
import type { PlatformConnection } from '../../src/bridge/types.js';
import { shardName } from './shards.js';

/** discord.js's shard states in words a probe's reader understands. */
const WORDS: Partial<Record<Status, string>> = {
  [Status.Connecting]: 'connecting',
  [Status.Reconnecting]: 'reconnecting',
  [Status.Idle]: 'idle',
  [Status.Nearly]: 'connecting',
  [Status.Disconnected]: 'disconnected',
  [Status.WaitingForGuilds]: 'waiting for its servers',
  [Status.Identifying]: 'identifying',
  [Status.Resuming]: 'resuming',
};

export function heldShards(client: Client): PlatformConnection[] {
  // Known once connected: with shards 'auto' discord.js sets the count from /gateway/bot.
  const count = client.options.shardCount ?? 1;
  return [...client.ws.shards.values()]
    .sort((a, b) => a.id - b.id)
    .map((shard) => ({
      name: shardName(shard.id, count),
      ...(shard.status === Status.Ready
        ? {}
        : { notReady: `gateway ${WORDS[shard.status] ?? 'not ready'}` }),
    }));
}
