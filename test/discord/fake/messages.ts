// The fake's message routes: posting, editing, and starting a thread on a message, with the
// checks Discord makes (empty content, 2,000 characters, thread name length) and the
// switchable thread-creation failures.
import type { FakeDiscord, FakeRequest, Reply } from './discord.js';
import {
  ChannelKind,
  channelPayload,
  messagePayload,
  snowflake,
  type FakeChannel,
  type FakeMessage,
} from './payloads.js';

export function createMessage(fake: FakeDiscord, channelId: string, body: unknown): Reply {
  const channel = fake.channels.get(channelId);
  if (!channel) return { status: 404, body: { message: 'Unknown Channel', code: 10003 } };
  if (fake.refusePosts.has(channelId))
    return { status: 403, body: { message: 'Missing Permissions', code: 50013 } };
  const data = body as {
    content?: string;
    allowed_mentions?: unknown;
    message_reference?: FakeMessage['message_reference'];
    components?: unknown[];
  };
  const content = data.content ?? '';
  if (content.trim() === '')
    return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
  if (content.length > 2000) return invalid('content', 'Must be 2000 or fewer in length.');
  const message = fake.store({
    id: snowflake(),
    channel_id: channelId,
    guild_id: channel.guild_id,
    author: fake.bot,
    content,
    mentions: [],
    attachments: [],
    message_reference: data.message_reference,
    allowedMentions: [data.allowed_mentions],
    history: [content],
    flags: 0,
    ...(data.components ? { components: data.components } : {}),
  });
  fake.emit('message', message);
  const payload = messagePayload(message, channel.type);
  // Discord echoes the bot's own messages on the gateway: the bot must ignore them.
  fake.gateway.dispatch('MESSAGE_CREATE', payload);
  return { status: 200, body: payload };
}

/** GET /channels/:id/messages?before=&limit=: newest first, as the connection may read them. */
export function listMessages(fake: FakeDiscord, channelId: string, query: URLSearchParams): Reply {
  if (!fake.channels.has(channelId))
    return { status: 404, body: { message: 'Unknown Channel', code: 10003 } };
  const before = query.get('before');
  const limit = Number(query.get('limit') ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return invalid('limit', 'int value should be less than or equal to 100.');
  const found = [...fake.messages.values()]
    .filter((m) => m.channel_id === channelId && (before === null || BigInt(m.id) < BigInt(before)))
    .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
    .slice(0, limit);
  return { status: 200, body: found.map((m) => fake.delivered(m)) };
}

export function editMessage(fake: FakeDiscord, messageId: string, body: unknown): Reply {
  const message = fake.messages.get(messageId);
  if (!message) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
  const data = body as { content?: string; allowed_mentions?: unknown; components?: unknown[] };
  if (data.components !== undefined) message.components = data.components;
  if (data.content !== undefined) {
    if (data.content.length > 2000) return invalid('content', 'Must be 2000 or fewer in length.');
    if (data.content.trim() === '')
      return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    message.content = data.content;
    message.history.push(data.content);
  }
  message.allowedMentions.push(data.allowed_mentions);
  fake.emit('edit', message);
  return {
    status: 200,
    body: messagePayload(message, fake.channels.get(message.channel_id)?.type ?? 0),
  };
}

export function startThread(
  fake: FakeDiscord,
  channelId: string,
  messageId: string,
  body: { name: string },
): Reply {
  const failure = fake.threadFailure;
  if (failure === 'rate-limit') return tooManyRequests({ method: 'POST', path: '' }, 2000);
  if (failure === 'forbidden')
    return { status: 403, body: { message: 'Missing Permissions', code: 50013 } };
  if (failure === 'exists') {
    return {
      status: 400,
      body: { message: 'A thread has already been created for this message', code: 160004 },
    };
  }
  if (!body.name || body.name.length > 100)
    return invalid('name', 'Must be between 1 and 100 in length.');
  const thread: FakeChannel = {
    id: messageId, // Discord gives a thread started on a message that message's id.
    type: ChannelKind.PublicThread,
    guild_id: fake.channels.get(channelId)?.guild_id ?? fake.guildId,
    parent_id: channelId,
    name: body.name,
    owner_id: fake.bot.id,
  };
  fake.channels.set(thread.id, thread);
  fake.emit('thread', thread);
  fake.gateway.dispatch('THREAD_CREATE', { ...channelPayload(thread), newly_created: true });
  return { status: 201, body: channelPayload(thread) };
}

function invalid(field: string, message: string): Reply {
  return {
    status: 400,
    body: {
      message: 'Invalid Form Body',
      code: 50035,
      errors: { [field]: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message }] } },
    },
  };
}

export function tooManyRequests(
  request: Pick<FakeRequest, 'method' | 'path'>,
  retryAfterMs: number,
): Reply {
  const seconds = retryAfterMs / 1000;
  return {
    status: 429,
    headers: {
      'retry-after': String(seconds),
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset-after': String(seconds),
      'x-ratelimit-bucket': `fake-${request.method}`,
      'x-ratelimit-scope': 'user',
    },
    body: { message: 'You are being rate limited.', retry_after: seconds, global: false },
  };
}
