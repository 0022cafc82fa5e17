// `chatbridge start` holding one of two Discord shards: GET /readyz names the shard it holds,
// /metrics shows it ready, a server on the other shard is not this process's; a bad
// DISCORD_SHARDS stops start with the variable and the rule; holding some shards without Redis
// is warned about.
import { describe, expect, it } from 'vitest';
import { warnUnsharedShards } from '../../adapters/discord/shards.js';
import { scriptedService } from '../ops/scripted-service.js';
import {
  createChatbot,
  get,
  serviceEnv,
  startBridge,
  startWith,
  cleanupsAfterEach,
  closing,
} from '../ops/start-rig.js';
import { FakeDiscord, TOKEN } from './fake/discord.js';
import { user } from './fake/payloads.js';

const ana = user('100000000000000021', 'ana');

const cleanups = cleanupsAfterEach();

describe('chatbridge start with DISCORD_SHARDS', () => {
  it('reports the shard it holds in /readyz and /metrics, and answers only its servers', async () => {
    const service = closing(cleanups, await scriptedService(Promise.resolve()));
    const chatbot = await createChatbot(service.url, 'Shard');
    const fake = closing(cleanups, await new FakeDiscord().start());
    const mine = fake.addGuild(1, 2);
    const theirs = fake.addGuild(0, 2);

    const { port, started } = await startBridge(
      {
        ...serviceEnv(service.url),
        DISCORD_TOKEN: TOKEN,
        DISCORD_API_URL: fake.apiUrl,
        DISCORD_SHARD_COUNT: '2',
        DISCORD_SHARDS: '1',
        CHATBRIDGE_CHATBOT: chatbot,
      },
      cleanups,
    );
    await started;
    const ready = await get(port, '/readyz');
    expect(fake.gateway.identified).toEqual([[1, 2]]);
    expect(JSON.parse(ready.text)).toEqual({
      status: 'ready',
      checks: {
        store: 'ok',
        service: 'ok',
        'platform:discord': 'ok',
        'platform:discord:shard 1/2': 'ok',
      },
    });
    const metrics = (await get(port, '/metrics')).text;
    expect(metrics).toContain(
      'chatbridge_platform_connection_ready{platform="discord",connection="shard 1/2"} 1',
    );
    expect(metrics).not.toContain('connection="shard 0/2"');

    const mention = `<@${fake.bot.id}> `;
    const other = fake.userMessage(theirs.textChannel.id, ana, `${mention}not mine`, {
      mentions: [fake.bot],
    });
    const asked = fake.userMessage(mine.textChannel.id, ana, `${mention}refunds?`, {
      mentions: [fake.bot],
    });
    await fake.waitFor('message', (m: { channel_id: string }) => m.channel_id === asked.id);
    // The other server's message waits for a process holding shard 0; this one never saw it.
    expect(fake.gateway.shardsThatGot('MESSAGE_CREATE', other.id)).toEqual([]);
    expect(fake.botMessages(other.id)).toEqual([]);
  });

  it('stops at once on a shard id outside the count, naming the variable and the rule', async () => {
    await expect(
      startWith({
        DISCORD_TOKEN: TOKEN,
        DISCORD_SHARD_COUNT: '2',
        DISCORD_SHARDS: '0,2',
        CHATBRIDGE_STORE: 'memory://',
        LOG_LEVEL: 'silent',
      }),
    ).rejects.toThrow('DISCORD_SHARDS: shard id 2 is outside 0..1 (DISCORD_SHARD_COUNT is 2)');
  });

  it('warns when this process holds only some shards and the store is not shared', () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    warnUnsharedShards({ mode: 'ids', ids: [0], count: 2 }, true, logger);
    warnUnsharedShards({ mode: 'ids', ids: [0, 1], count: 2 }, false, logger);
    warnUnsharedShards({ mode: 'auto' }, false, logger);
    expect(warnings).toEqual([]);
    warnUnsharedShards({ mode: 'ids', ids: [0], count: 2 }, false, logger);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('DISCORD_SHARDS holds 1 of 2 shards');
    expect(warnings[0]).toContain('CHATBRIDGE_STORE=redis://');
  });
});
