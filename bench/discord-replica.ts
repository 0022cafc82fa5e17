// A second bot process for the two-process Discord rows of `npm run bench`: its own engine,
// service client and discord.js connection (holding the shards DISCORD_SHARDS names, if set),
// on the bench's fake Discord, local service and Redis (state and rate budget). Prints "ready"
// once connected; on SIGTERM prints how many REST calls it made and exits.
import { createDiscordAdapter } from '../adapters/discord/adapter.js';
import { discordShards } from '../adapters/discord/shards.js';
import { RESTEvents } from 'discord.js';
import { createConversation } from '../src/bridge/index.js';
import { silentLogger } from '../src/log.js';
import { createServiceClient } from '../src/service/index.js';
import { readSettings } from '../src/settings/index.js';
import { openState } from '../src/state/index.js';

const env = process.env;
const required = (name: string): string => {
  const value = env[name];
  if (!value) throw new Error(`discord-replica: ${name} is required`);
  return value;
};

const discord = readSettings('discord', env);
const shards = discordShards(discord.DISCORD_SHARDS, discord.DISCORD_SHARD_COUNT);
const state = await openState(required('REDIS_URL'), { keyPrefix: required('KEY_PREFIX') });
const client = createServiceClient({
  baseUrl: required('SERVICE_URL'),
  apiKey: required('SERVICE_KEY'),
});
const conversation = createConversation({ client, state });
const adapter = createDiscordAdapter(
  {
    token: required('DISCORD_TOKEN'),
    apiUrl: required('DISCORD_API_URL'),
    maxUploadBytes: 1_000_000,
    messageContent: 'auto',
    admins: [],
    // DISCORD_SHARDS / DISCORD_SHARD_COUNT when the row runs shards (unset: shard 0 of 1).
    ...(shards ? { shards } : {}),
  },
  {
    conversation,
    state,
    client,
    logger: silentLogger,
    minUpdateMs: 1000,
    rateBudget: state.rateBudget,
  },
);
await adapter.start();
let calls = 0;
adapter.discord.rest.on(RESTEvents.Response, () => (calls += 1));
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void (async () => {
    await adapter.stop();
    await state.close();
    await client.close();
    process.stdout.write(`calls ${calls}\n`);
    process.exit(0);
  })();
});
