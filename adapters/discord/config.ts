// Discord settings, from the values the one table parsed (src/settings/discord.ts: each value's
// type and rule); this says how they go together. The token never appears in an error message.
import type { ProxySettings } from '../../src/service/index.js';
import type { SettingsOf } from '../../src/settings/index.js';
import { DiscordConfigError } from './config-error.js';
import { discordShards, type DiscordShards } from './shards.js';

/** The Discord settings as the table parses them (blank is unset). */
export type DiscordSettings = SettingsOf<'discord'>;

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
  /**
   * The proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) for REST calls and attachment
   * downloads; `chatbridge start` reads them. discord.js's gateway WebSocket takes no proxy.
   */
  proxy?: ProxySettings;
}

export const MESSAGE_CONTENT_MODES = ['auto', 'on', 'off'] as const;
export type MessageContentMode = (typeof MESSAGE_CONTENT_MODES)[number];

export { DiscordConfigError };

/**
 * The Discord configuration, or undefined when DISCORD_TOKEN is not set (Discord disabled).
 * Shard settings without a token are a half-set configuration: refused, rather than quietly
 * running without Discord (and leaving those shards' servers without the bot).
 */
export function discordConfig(settings: DiscordSettings): DiscordAdapterConfig | undefined {
  // A pasted "Bot xxx" header value is accepted (the table's rule); the prefix is not the token.
  const token = settings.DISCORD_TOKEN?.replace(/^Bot\s+/i, '');
  if (token === undefined) {
    if (settings.DISCORD_SHARDS !== undefined || settings.DISCORD_SHARD_COUNT !== undefined) {
      throw new DiscordConfigError(
        'DISCORD_TOKEN',
        'required when DISCORD_SHARDS or DISCORD_SHARD_COUNT is set (the bot token)',
      );
    }
    return undefined;
  }
  const shards = discordShards(settings.DISCORD_SHARDS, settings.DISCORD_SHARD_COUNT);
  return {
    token,
    apiUrl: settings.DISCORD_API_URL.replace(/\/+$/, ''),
    maxUploadBytes: settings.CHATBRIDGE_MAX_UPLOAD_BYTES,
    applicationId: settings.DISCORD_APPLICATION_ID,
    messageContent: settings.DISCORD_MESSAGE_CONTENT as MessageContentMode,
    admins: settings.CHATBRIDGE_ADMINS ?? [],
    ...(shards ? { shards } : {}),
  };
}
