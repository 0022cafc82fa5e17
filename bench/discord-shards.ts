// The Discord bench's shard row: two processes each holding one of two gateway shards (the
// bench process shard 0, bench/discord-replica.ts shard 1), on one Redis (state and rate
// budget), answering questions spread over a server on each shard while the fake enforces
// Discord's limits.
import { RESTEvents } from 'discord.js';
import { openState } from '../src/state/index.js';
import { startEngineRig } from '../test/discord/engine-rig.js';
import { hasRedisServer, startRedisServer } from '../test/state/redis-server.js';
import { burst } from './discord-burst.js';
import { startReplicaProcess } from './discord-process.js';
import type { BenchRow } from './table.js';

export async function twoShards(threads: number): Promise<BenchRow[]> {
  const where = `${threads} concurrent threads over two shards in two processes on one Redis, Discord's limits enforced`;
  if (!hasRedisServer) {
    return [{ area: 'discord', metric: where, value: 'skipped: no redis-server', target: '' }];
  }
  const redis = await startRedisServer();
  const keyPrefix = 'bench-discord-shards';
  const first = await startEngineRig({
    minUpdateMs: 1000,
    sharedBudget: true,
    state: await openState(redis.url, { keyPrefix }),
    shards: { mode: 'ids', ids: [0], count: 2 },
  });
  const servers = [first.fake.addGuild(0, 2), first.fake.addGuild(1, 2)];
  for (const { guildId } of servers)
    await first.state.bindings.set(`discord:${guildId}`, first.chatbotUuid);
  const second = await startReplicaProcess(first, redis.url, keyPrefix, {
    DISCORD_SHARD_COUNT: '2',
    DISCORD_SHARDS: '1',
  });
  try {
    let calls = 0;
    first.adapter.discord.rest.on(RESTEvents.Response, () => (calls += 1));
    const rows = await burst(first, threads, 'discord', '', {
      channelOf: (i) => servers[i % 2]!.textChannel.id,
      where,
      timeoutMs: 120_000,
    });
    const theirs = await second.stop();
    // Which shard's connection each question reached (each must reach exactly one).
    const fake = first.fake;
    const questions = fake.gateway.deliveries.filter(
      (d) =>
        d.t === 'MESSAGE_CREATE' &&
        d.id !== undefined &&
        fake.messages.get(d.id)?.author.id !== fake.bot.id,
    );
    const onShard = (id: number) => questions.filter((d) => d.shard[0] === id).length;
    const spread = onShard(0) === threads / 2 && onShard(1) === threads / 2;
    rows[0]!.value += `; questions by shard ${onShard(0)}/${onShard(1)}, REST calls by process ${calls}/${theirs}`;
    rows[0]!.ok = (rows[0]!.ok ?? true) && spread && questions.length === threads;
    return rows;
  } finally {
    await second.stop();
    await first.close();
    await redis.stop();
  }
}
