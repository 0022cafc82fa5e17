// Which gateway shards this process holds: DISCORD_SHARD_COUNT (the bot's total over all
// processes) and DISCORD_SHARDS (this process's ids, or `auto`). Discord sends a server's events
// to shard (guild_id >> 22) % count and DMs to shard 0 only, so processes holding different
// shards share the bot's work; everything they remember is in the shared store.
import type { ClientOptions } from 'discord.js';
import type { Logger } from 'pino';
import { DiscordConfigError } from './config-error.js';

/**
 * `auto`: this one process takes every shard, at the count Discord recommends (GET
 * /gateway/bot). `ids`: this process takes these shards out of `count`.
 */
export type DiscordShards = { mode: 'auto' } | { mode: 'ids'; ids: number[]; count: number };

/** "0,2,5-7": ids and inclusive ranges, separated by commas or spaces. */
function parseIds(raw: string, count: number): number[] {
  const ids = new Set<number>();
  for (const part of raw.split(/[\s,]+/).filter((p) => p !== '')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!range) {
      throw new DiscordConfigError(
        'DISCORD_SHARDS',
        `"${part}" is not a shard id: use auto, or ids and ranges like 0,1 or 0-3`,
      );
    }
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (to < from) {
      throw new DiscordConfigError('DISCORD_SHARDS', `range ${part} must go upwards`);
    }
    for (let id = from; id <= to; id++) {
      if (id >= count) {
        throw new DiscordConfigError(
          'DISCORD_SHARDS',
          `shard id ${id} is outside 0..${count - 1} (DISCORD_SHARD_COUNT is ${count})`,
        );
      }
      if (ids.has(id)) {
        throw new DiscordConfigError('DISCORD_SHARDS', `shard id ${id} is listed twice`);
      }
      ids.add(id);
    }
  }
  if (ids.size === 0) {
    throw new DiscordConfigError('DISCORD_SHARDS', 'names no shard: use auto, or ids like 0,1');
  }
  return [...ids];
}

/**
 * The shards of this process from DISCORD_SHARDS and DISCORD_SHARD_COUNT as the settings table
 * parsed them (the count a whole number from 1 up), or undefined when neither is set (one
 * connection, shard 0 of 1, as discord.js connects by default).
 */
export function discordShards(
  shards: string | undefined,
  count: number | undefined,
): DiscordShards | undefined {
  if (shards?.toLowerCase() === 'auto') {
    if (count !== undefined) {
      throw new DiscordConfigError(
        'DISCORD_SHARD_COUNT',
        'must not be set with DISCORD_SHARDS=auto (auto takes every shard at the count Discord ' +
          "recommends, in this one process); to split the bot's shards over processes, set " +
          'DISCORD_SHARDS to the ids this process holds',
      );
    }
    return { mode: 'auto' };
  }
  if (shards === undefined) {
    if (count === undefined) return undefined;
    // A count alone: this process holds all of them.
    return { mode: 'ids', ids: Array.from({ length: count }, (_, id) => id), count };
  }
  if (count === undefined) {
    throw new DiscordConfigError(
      'DISCORD_SHARD_COUNT',
      'is required when DISCORD_SHARDS lists shard ids (the number of shards over all processes)',
    );
  }
  return { mode: 'ids', ids: parseIds(shards, count), count };
}

/** The discord.js Client options for these shards (none: discord.js's default, 0 of 1). */
export function shardClientOptions(
  shards: DiscordShards | undefined,
): Pick<ClientOptions, 'shards' | 'shardCount'> {
  if (shards === undefined) return {};
  if (shards.mode === 'auto') return { shards: 'auto' };
  return { shards: shards.ids, shardCount: shards.count };
}

/** How logs and /readyz name a shard: "shard 1/2". */
export function shardName(id: number, count: number): string {
  return `shard ${id}/${count}`;
}

/**
 * Holding only some shards means other processes hold the rest: without a shared store (Redis)
 * they cannot continue each other's conversations or share the bot's rate budget.
 */
export function warnUnsharedShards(
  shards: DiscordShards | undefined,
  sharedStore: boolean | undefined,
  logger: Pick<Logger, 'warn'>,
): void {
  if (sharedStore !== false || shards?.mode !== 'ids' || shards.ids.length === shards.count) return;
  logger.warn(
    `discord: DISCORD_SHARDS holds ${shards.ids.length} of ${shards.count} shards, but ` +
      'CHATBRIDGE_STORE is not Redis: the processes holding the other shards cannot continue ' +
      "this one's conversations (after re-sharding) or share the bot's rate budget. Use " +
      'CHATBRIDGE_STORE=redis://… for several processes.',
  );
}
