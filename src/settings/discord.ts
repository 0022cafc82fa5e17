// The Discord adapter's rows of the settings table (index.ts); CHATBRIDGE_ADMINS and
// CHATBRIDGE_MAX_UPLOAD_BYTES are start's rows it reads too. adapters/discord/config.ts (and
// shards.ts) get them parsed and check how they go together.
import type { Setting } from './types.js';

export const DISCORD_SETTINGS = [
  {
    name: 'DISCORD_TOKEN',
    type: 'secret',
    use: ['discord'],
    help: 'The bot token; see [discord.md](discord.md)',
    // A pasted "Bot xxx" header value is accepted; the adapter drops the prefix.
    pattern: /^(?:Bot\s+)?\S+$/i,
    rule: 'must be one word (the bot token; a pasted "Bot " prefix is dropped)',
  },
  {
    name: 'DISCORD_MESSAGE_CONTENT',
    type: 'choice',
    choices: ['auto', 'on', 'off'],
    use: ['discord'],
    help: 'The Message Content intent: `auto` asks and connects without it when refused, `on` insists, `off` never asks',
    default: 'auto',
  },
  {
    name: 'DISCORD_APPLICATION_ID',
    type: 'text',
    use: ['discord'],
    help: 'The application id for command registration',
    defaultText: 'read from the API',
    pattern: /^\d{5,25}$/,
    rule: 'must be a numeric snowflake id',
  },
  {
    name: 'DISCORD_API_URL',
    type: 'url',
    use: ['discord'],
    help: 'The REST base including `/api` (a test fake)',
    default: 'https://discord.com/api',
    rule: 'must be an http(s) address including /api, like https://discord.com/api',
  },
  {
    name: 'DISCORD_SHARD_COUNT',
    type: 'whole',
    min: 1,
    max: 100_000,
    use: ['discord'],
    help: "The bot's shard count over all processes; see [discord.md](discord.md#6-shards)",
    defaultText: 'one connection (shard 0 of 1)',
    rule: "must be a whole number from 1 to 100000 (the bot's shards over all processes)",
  },
  {
    name: 'DISCORD_SHARDS',
    type: 'text',
    use: ['discord'],
    help: "This process's shard ids (`0,1`, `2-3`) or `auto`",
    defaultText: 'all of them',
  },
] as const satisfies readonly Setting[];
