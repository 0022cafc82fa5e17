// The discord.js client as chatbridge runs it: intents, DM partials, mentions off by default,
// the REST base URL from the config, and which rate limits surface as errors instead of being
// waited out inside discord.js.
import {
  Client,
  DefaultRestOptions,
  GatewayIntentBits,
  Partials,
  type MessageMentionOptions,
  type RateLimitData,
} from 'discord.js';
import type { Dispatcher } from 'undici';
import { createHash } from 'node:crypto';
import type { RateBudget } from '../../src/state/types.js';
import { pacedRequests } from './budget.js';
import type { DiscordAdapterConfig } from './config.js';
import { shardClientOptions } from './shards.js';
import { withEncodedForms } from './form-body.js';
import { restThrough } from './rest-transport.js';

/** Nobody is pinged by anything the bot writes: not @everyone, roles, users or the replied-to. */
export const NO_MENTIONS: MessageMentionOptions = { parse: [] };
export const NO_MENTIONS_REPLY: MessageMentionOptions = { parse: [], repliedUser: false };

/**
 * Rate limits that reject instead of queueing: a streamed edit is better skipped (the renderer
 * sends the latest text later) than sent stale; a thread that Discord will not make now falls
 * back to a reply; typing is a courtesy. discord.js's own global pacing (50 requests/s, reported
 * as `global`) is short, so threads and typing wait it out. Posting messages and interaction
 * replies always queue.
 */
export function shouldRejectOnRateLimit(
  data: Pick<RateLimitData, 'method' | 'route' | 'global'>,
): boolean {
  const method = data.method.toUpperCase();
  if (method === 'PATCH' && data.route === '/channels/:id/messages/:id') return true;
  if (data.global) return false;
  if (method === 'POST' && data.route === '/channels/:id/messages/:id/threads') return true;
  if (method === 'POST' && data.route === '/channels/:id/typing') return true;
  return false;
}

/** Discord's gateway close code for an intent the application may not use (not enabled). */
export const DISALLOWED_INTENTS_CLOSE = 4014;

export function gatewayIntents(messageContent: boolean): GatewayIntentBits[] {
  return [
    GatewayIntentBits.Guilds,
    GatewayIntentBits.GuildMessages,
    GatewayIntentBits.DirectMessages,
    // Privileged: without it, only messages that mention the bot (and DMs) carry content.
    ...(messageContent ? [GatewayIntentBits.MessageContent] : []),
  ];
}

/** Names the bot's buckets in a shared store without the token itself. */
export function botKey(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

export function createDiscordClient(
  config: Pick<DiscordAdapterConfig, 'apiUrl' | 'token' | 'shards'>,
  options: { messageContent: boolean; rateBudget?: RateBudget; dispatcher?: Dispatcher },
): Client {
  // Through the proxy variables when set (adapters/shared/outbound.ts); discord.js's own else.
  const send = options.dispatcher
    ? restThrough(options.dispatcher)
    : DefaultRestOptions.makeRequest;
  return new Client({
    intents: gatewayIntents(options.messageContent),
    // DM channels are not cached before their first message arrives.
    partials: [Partials.Channel],
    allowedMentions: NO_MENTIONS_REPLY,
    // The gateway shards this process holds (DISCORD_SHARDS); IDENTIFY carries [id, count].
    ...shardClientOptions(config.shards),
    rest: {
      ...(config.apiUrl ? { api: config.apiUrl } : {}),
      rejectOnRateLimit: shouldRejectOnRateLimit,
      // Paced by the shared budget first (replicas on one Redis spend from one bucket).
      makeRequest: withEncodedForms(
        options.rateBudget ? pacedRequests(options.rateBudget, botKey(config.token), send) : send,
      ),
    },
  });
}
