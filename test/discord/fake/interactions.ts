// The fake's side of slash commands: INTERACTION_CREATE payloads, the callback endpoint, the
// interaction webhook (edit original, follow-ups) and command registration.
import type { FakeDiscord, FakeRequest, Reply } from './discord.js';
import {
  channelPayload,
  memberPayload,
  messagePayload,
  snowflake,
  type FakeMessage,
  type FakeUser,
} from './payloads.js';

type Route = [
  method: string,
  pattern: string,
  handler: (r: FakeRequest, params: string[]) => Reply,
];

export interface InteractionRecord {
  id: string;
  token: string;
  /** Callback bodies (type 4 reply, 5 deferred, 8 autocomplete result). */
  callbacks: {
    type: number;
    data?: { content?: string; flags?: number; choices?: unknown[]; allowed_mentions?: unknown };
  }[];
  /** The visible answer: the original (after edits) and follow-ups. */
  messages: FakeMessage[];
  /** Files attached to the answer (multipart uploads), in order. */
  files: { name: string; bytes: Buffer }[];
}

export interface SlashOptions {
  user: FakeUser;
  /** Permission bitfield of the member as a decimal string (Manage Server is 32). */
  permissions?: string;
  channelId: string;
  /** Subcommand group and subcommand; group omitted for a top-level subcommand (help). */
  group?: string;
  sub: string;
  options?: { name: string; type: number; value: string | number | boolean; focused?: boolean }[];
  attachments?: Record<string, unknown>;
  autocomplete?: boolean;
  dm?: boolean;
}

export const MANAGE_GUILD = '32';

export function dispatchInteraction(fake: FakeDiscord, o: SlashOptions): InteractionRecord {
  const record = newRecord(fake);
  const sub = { type: 1, name: o.sub, options: o.options ?? [] };
  const options = o.group ? [{ type: 2, name: o.group, options: [sub] }] : [sub];
  fake.gateway.dispatch('INTERACTION_CREATE', {
    ...common(fake, record, o),
    type: o.autocomplete ? 4 : 2,
    data: {
      id: snowflake(),
      name: 'chatbridge',
      type: 1,
      options,
      ...(o.attachments ? { resolved: { attachments: o.attachments } } : {}),
    },
  });
  return record;
}

function webhookMessage(fake: FakeDiscord, record: InteractionRecord, body: unknown): FakeMessage {
  const data = body as { content?: string; flags?: number; allowed_mentions?: unknown };
  return {
    id: snowflake(),
    channel_id: fake.textChannel.id,
    author: fake.bot,
    content: data.content ?? '',
    mentions: [],
    attachments: [],
    allowedMentions: [data.allowed_mentions],
    history: [data.content ?? ''],
    flags: data.flags ?? 0,
  };
}

/** Where a component or modal interaction happens: who, in which channel (guild or DM). */
export interface ComponentOptions {
  user: FakeUser;
  channelId: string;
  dm?: boolean;
  /** The server it happens in (default the main one); its shard decides who receives it. */
  guildId?: string;
}

function newRecord(fake: FakeDiscord): InteractionRecord {
  const record: InteractionRecord = {
    id: snowflake(),
    token: `tok-${snowflake()}`,
    callbacks: [],
    messages: [],
    files: [],
  };
  fake.interactions.set(record.token, record);
  fake.interactions.set(record.id, record);
  return record;
}

/** The fields every interaction carries: its ids, the channel, and who (member or DM user). */
function common(
  fake: FakeDiscord,
  record: InteractionRecord,
  o: ComponentOptions & { permissions?: string },
) {
  const channel = fake.channels.get(o.channelId);
  const guildId = o.guildId ?? fake.guildId;
  return {
    id: record.id,
    application_id: fake.applicationId,
    token: record.token,
    version: 1,
    channel_id: o.channelId,
    ...(channel ? { channel: channelPayload(channel) } : {}),
    app_permissions: '2248473465835073',
    locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { 0: guildId },
    attachment_size_limit: 10_485_760,
    ...(o.dm
      ? { user: o.user, context: 1 }
      : {
          guild_id: guildId,
          guild_locale: 'en-US',
          member: { user: o.user, ...memberPayload(o.permissions ?? '0') },
          context: 0,
        }),
  };
}

/** A click on a button of one of the bot's messages (MESSAGE_COMPONENT). */
export function clickButton(
  fake: FakeDiscord,
  o: ComponentOptions & { message: FakeMessage; customId: string },
): InteractionRecord {
  const record = newRecord(fake);
  fake.gateway.dispatch('INTERACTION_CREATE', {
    ...common(fake, record, o),
    type: 3,
    message: messagePayload(o.message, fake.channels.get(o.message.channel_id)?.type ?? 0),
    data: { custom_id: o.customId, component_type: 2 },
  });
  return record;
}

/** A submitted modal (MODAL_SUBMIT) with one text input per entry of `values`. */
export function submitModal(
  fake: FakeDiscord,
  o: ComponentOptions & { customId: string; values: Record<string, string> },
): InteractionRecord {
  const record = newRecord(fake);
  fake.gateway.dispatch('INTERACTION_CREATE', {
    ...common(fake, record, o),
    type: 5,
    data: {
      custom_id: o.customId,
      components: Object.entries(o.values).map(([id, value]) => ({
        type: 1,
        components: [{ type: 4, custom_id: id, value }],
      })),
    },
  });
  return record;
}

export function interactionRoutes(fake: FakeDiscord): Route[] {
  const tooLong = (body: unknown) => ((body as { content?: string }).content ?? '').length > 2000;
  return [
    [
      'POST',
      '/interactions/:id/:token/callback',
      (r, [id]) => {
        const record = fake.interactions.get(id!);
        if (!record) return { status: 404, body: { message: 'Unknown interaction', code: 10062 } };
        if (record.callbacks.length > 0) {
          return {
            status: 400,
            body: { message: 'Interaction has already been acknowledged.', code: 40060 },
          };
        }
        const callback = r.body as InteractionRecord['callbacks'][number];
        record.files.push(...((r.body as { files?: InteractionRecord['files'] }).files ?? []));
        if (tooLong(callback.data ?? {}))
          return { status: 400, body: { message: 'content too long', code: 50035 } };
        record.callbacks.push(callback);
        // Type 4 answers at once; type 5 shows "thinking…" until the original is edited.
        if (callback.type === 4 || callback.type === 5) {
          const message = webhookMessage(fake, record, callback.data ?? {});
          if (callback.type === 5) message.history = [];
          record.messages.push(message);
        }
        fake.emit('interaction', record);
        return { status: 204 };
      },
    ],
    [
      'PATCH',
      '/webhooks/:app/:token/messages/@original',
      (r, [, token]) => {
        const record = fake.interactions.get(token!);
        if (!record || record.callbacks.length === 0)
          return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
        if (tooLong(r.body))
          return { status: 400, body: { message: 'content too long', code: 50035 } };
        record.files.push(...((r.body as { files?: InteractionRecord['files'] }).files ?? []));
        const edited = webhookMessage(fake, record, r.body);
        const original = record.messages[0]!;
        original.content = edited.content;
        original.history.push(edited.content);
        original.allowedMentions.push(edited.allowedMentions[0]);
        fake.emit('interaction', record);
        return { status: 200, body: messagePayload(record.messages[0]!, 0) };
      },
    ],
    [
      'GET',
      '/webhooks/:app/:token/messages/@original',
      (_r, [, token]) => {
        const original = fake.interactions.get(token!)?.messages[0];
        if (!original) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
        return { status: 200, body: messagePayload(original, 0) };
      },
    ],
    [
      'POST',
      '/webhooks/:app/:token',
      (r, [, token]) => {
        const record = fake.interactions.get(token!);
        if (!record) return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
        if (tooLong(r.body))
          return { status: 400, body: { message: 'content too long', code: 50035 } };
        const message = webhookMessage(fake, record, r.body);
        record.messages.push(message);
        fake.emit('interaction', record);
        return { status: 200, body: messagePayload(message, 0) };
      },
    ],
    [
      'PUT',
      '/applications/:app/commands',
      (r) => {
        fake.commands.set('global', r.body as unknown[]);
        return { status: 200, body: (r.body as object[]).map((c) => ({ ...c, id: snowflake() })) };
      },
    ],
    [
      'PUT',
      '/applications/:app/guilds/:guild/commands',
      (r, [, guild]) => {
        fake.commands.set(guild!, r.body as unknown[]);
        return { status: 200, body: (r.body as object[]).map((c) => ({ ...c, id: snowflake() })) };
      },
    ],
  ];
}
