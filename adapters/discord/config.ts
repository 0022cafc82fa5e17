// Discord settings, read from the environment by `discordConfigFromEnv` and validated once.
// The token never appears in an error message.
import { DEFAULT_MAX_UPLOAD_BYTES } from '../../src/admin/index.js';
import { DiscordConfigError } from './config-error.js';
import { discordShardsFromEnv, type DiscordShards } from './shards.js';

export interface DiscordAdapterConfig {
  /** Bot token (DISCORD_TOKEN). */
  token: string;
  /** REST base URL including /api (DISCORD_API_URL); the gateway URL comes from /gateway/bot. */
  apiUrl?: string;
  /** Largest attachment `source upload` downloads (CHATBRIDGE_MAX_UPLOAD_BYTES). */
  maxUploadBytes: number;
  /** Application id for command registration (DISCORD_APPLICATION_ID); else read from the API. */
  applicationId?: string;
  /**
   * The privileged Message Content intent (DISCORD_MESSAGE_CONTENT): `auto` asks for it and
   * connects without it when Discord refuses (close code 4014), `on` insists, `off` never asks.
   */
  messageContent: MessageContentMode;
  /** User ids that may run admin commands anywhere, DMs included (CHATBRIDGE_ADMINS). */
  admins: string[];
  /**
   * The gateway shards this process holds (DISCORD_SHARDS, DISCORD_SHARD_COUNT; see shards.ts).
   * Unset: one connection, shard 0 of 1.
   */
  shards?: DiscordShards;
}

export const MESSAGE_CONTENT_MODES = ['auto', 'on', 'off'] as const;
export type MessageContentMode = (typeof MESSAGE_CONTENT_MODES)[number];

export const DEFAULT_DISCORD_API = 'https://discord.com/api';
export { DEFAULT_MAX_UPLOAD_BYTES };

export { DiscordConfigError };

function optional(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/**
 * The Discord settings, or undefined when DISCORD_TOKEN is not set (Discord disabled). Shard
 * settings without a token are a half-set configuration: refused, rather than quietly running
 * without Discord (and leaving those shards' servers without the bot).
 */
export function discordConfigFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): DiscordAdapterConfig | undefined {
  // A pasted "Bot xxx" header value is accepted; the prefix is not part of the token.
  const token = optional(env.DISCORD_TOKEN)?.replace(/^Bot\s+/i, '');
  if (token === undefined) {
    if (
      optional(env.DISCORD_SHARDS) !== undefined ||
      optional(env.DISCORD_SHARD_COUNT) !== undefined
    ) {
      throw new DiscordConfigError(
        'DISCORD_TOKEN',
        'required when DISCORD_SHARDS or DISCORD_SHARD_COUNT is set (the bot token)',
      );
    }
    return undefined;
  }
  if (/\s/.test(token)) {
    throw new DiscordConfigError(
      'DISCORD_TOKEN',
      'must be one word (the bot token, no "Bot " prefix)',
    );
  }
  const apiUrl = optional(env.DISCORD_API_URL);
  if (apiUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(apiUrl)) {
    throw new DiscordConfigError(
      'DISCORD_API_URL',
      'must be an http(s) address including /api, like https://discord.com/api',
    );
  }
  const applicationId = optional(env.DISCORD_APPLICATION_ID);
  if (applicationId !== undefined && !/^\d{5,25}$/.test(applicationId)) {
    throw new DiscordConfigError('DISCORD_APPLICATION_ID', 'must be a numeric snowflake id');
  }
  const maxRaw = optional(env.CHATBRIDGE_MAX_UPLOAD_BYTES);
  let maxUploadBytes = DEFAULT_MAX_UPLOAD_BYTES;
  if (maxRaw !== undefined) {
    if (!/^\d+$/.test(maxRaw) || +maxRaw < 1 || +maxRaw > 100_000_000) {
      throw new DiscordConfigError(
        'CHATBRIDGE_MAX_UPLOAD_BYTES',
        'must be a whole number from 1 to 100000000',
      );
    }
    maxUploadBytes = Number(maxRaw);
  }
  const mode = (optional(env.DISCORD_MESSAGE_CONTENT) ?? 'auto').toLowerCase();
  if (!(MESSAGE_CONTENT_MODES as readonly string[]).includes(mode)) {
    throw new DiscordConfigError('DISCORD_MESSAGE_CONTENT', 'must be one of auto, on, off');
  }
  const admins = parseAdmins(env.CHATBRIDGE_ADMINS);
  const shards = discordShardsFromEnv(env.DISCORD_SHARDS, env.DISCORD_SHARD_COUNT);
  return {
    token,
    apiUrl: apiUrl?.replace(/\/+$/, ''),
    maxUploadBytes,
    applicationId,
    messageContent: mode as MessageContentMode,
    admins,
    ...(shards ? { shards } : {}),
  };
}

/** CHATBRIDGE_ADMINS: ids separated by commas or spaces (Slack and Discord ids may be mixed). */
export function parseAdmins(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter((id) => id !== '');
}
