// Discord API objects as the fake hands them out (the fields discord.js reads).
import { SnowflakeUtil } from 'discord.js';

let sequence = 0n;
/** Real-looking snowflakes (17-19 digits: discord.js buckets rate limits by them). */
export function snowflake(): string {
  sequence += 1n;
  return (SnowflakeUtil.generate() + sequence).toString();
}

const DISCORD_EPOCH = 1_420_070_400_000n;
let onShardSequence = 0n;
/** A fresh snowflake whose server would be on this shard: its timestamp % count === shard. */
export function snowflakeOnShard(shard: number, count: number): string {
  const n = BigInt(count);
  let timestamp = BigInt(Date.now()) - DISCORD_EPOCH;
  timestamp -= (((timestamp - BigInt(shard)) % n) + n) % n;
  onShardSequence += 1n;
  return ((timestamp << 22n) | (onShardSequence & 0xfffn)).toString();
}

export interface FakeUser {
  id: string;
  username: string;
  global_name: string | null;
  discriminator: string;
  avatar: null;
  bot?: boolean;
}

export function user(id: string, username: string, bot = false): FakeUser {
  return {
    id,
    username,
    global_name: username,
    discriminator: '0',
    avatar: null,
    ...(bot ? { bot } : {}),
  };
}

export const ChannelKind = { Text: 0, DM: 1, PublicThread: 11, Forum: 15 } as const;

export interface FakeChannel {
  id: string;
  type: number;
  guild_id?: string;
  parent_id?: string | null;
  name?: string;
  owner_id?: string;
  recipients?: FakeUser[];
}

export function channelPayload(channel: FakeChannel): Record<string, unknown> {
  const base: Record<string, unknown> = {
    id: channel.id,
    type: channel.type,
    last_message_id: null,
    flags: 0,
  };
  if (channel.type === ChannelKind.DM) return { ...base, recipients: channel.recipients ?? [] };
  Object.assign(base, {
    guild_id: channel.guild_id,
    name: channel.name,
    parent_id: channel.parent_id ?? null,
    permission_overwrites: [],
    position: 0,
    nsfw: false,
    rate_limit_per_user: 0,
  });
  if (channel.type === ChannelKind.Forum) {
    Object.assign(base, {
      available_tags: [],
      default_reaction_emoji: null,
      default_sort_order: null,
      default_forum_layout: 0,
    });
  }
  if (channel.type === ChannelKind.PublicThread) {
    Object.assign(base, {
      owner_id: channel.owner_id,
      member_count: 1,
      message_count: 0,
      total_message_sent: 0,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 1440,
        archive_timestamp: new Date().toISOString(),
        locked: false,
      },
    });
  }
  return base;
}

export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
}

export interface FakeMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: FakeUser;
  content: string;
  mentions: FakeUser[];
  attachments: FakeAttachment[];
  message_reference?: { message_id: string; channel_id?: string };
  /** What the bot asked for (allowed_mentions) on its create and each edit. */
  allowedMentions: unknown[];
  /** Every content the message had, in order (create, then each edit). */
  history: string[];
  flags: number;
  /** Message components (action rows) as the bot last set them. */
  components?: unknown[];
}

export function messagePayload(message: FakeMessage, channelType: number): Record<string, unknown> {
  return {
    id: message.id,
    type: message.message_reference ? 19 : 0,
    channel_id: message.channel_id,
    ...(message.guild_id ? { guild_id: message.guild_id } : {}),
    author: message.author,
    ...(message.guild_id ? { member: memberPayload() } : {}),
    content: message.content,
    timestamp: new Date(SnowflakeUtil.timestampFrom(message.id)).toISOString(),
    edited_timestamp: message.history.length > 1 ? new Date().toISOString() : null,
    tts: false,
    mention_everyone: false,
    mentions: message.mentions.map((u) => ({
      ...u,
      ...(message.guild_id ? { member: memberPayload() } : {}),
    })),
    mention_roles: [],
    attachments: message.attachments,
    embeds: [],
    pinned: false,
    flags: message.flags,
    components: message.components ?? [],
    ...(message.message_reference ? { message_reference: message.message_reference } : {}),
    channel_type: channelType,
  };
}

export function memberPayload(permissions?: string): Record<string, unknown> {
  return {
    roles: [],
    joined_at: new Date(0).toISOString(),
    deaf: false,
    mute: false,
    flags: 0,
    ...(permissions === undefined ? {} : { permissions }),
  };
}

export function guildPayload(
  guildId: string,
  bot: FakeUser,
  channels: FakeChannel[],
): Record<string, unknown> {
  return {
    id: guildId,
    name: 'Fake Guild',
    icon: null,
    owner_id: bot.id,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    system_channel_flags: 0,
    preferred_locale: 'en-US',
    features: [],
    roles: [
      {
        id: guildId,
        name: '@everyone',
        permissions: '1071698660929',
        position: 0,
        color: 0,
        hoist: false,
        managed: false,
        mentionable: false,
        flags: 0,
      },
    ],
    emojis: [],
    stickers: [],
    channels: channels.filter((c) => c.type !== ChannelKind.PublicThread).map(channelPayload),
    // Active threads, as Discord sends them to a connection that joins (a restart, a shard).
    threads: channels.filter((c) => c.type === ChannelKind.PublicThread).map(channelPayload),
    members: [{ user: bot, ...memberPayload() }],
    member_count: 2,
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
    large: false,
    unavailable: false,
    joined_at: new Date(0).toISOString(),
  };
}
