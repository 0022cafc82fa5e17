// The Discord adapter's public surface, as `chatbridge start` and the CLI use it.
export { createDiscordAdapter, type DiscordAdapter, type DiscordAdapterDeps } from './adapter.js';
export { discordConfig, DiscordConfigError, type DiscordAdapterConfig } from './config.js';
export { warnUnsharedShards, type DiscordShards } from './shards.js';
export { buildSlashCommand, COMMAND_NAME } from './commands/build.js';
export {
  registerCommands,
  runDiscordCommand,
  type RegisterOptions,
  type RegisterResult,
} from './register.js';
