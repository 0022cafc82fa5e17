// Finds what a command acts on: the current chatbot (explicit --chatbot, else this channel's
// binding, else the workspace's) and agents, sources and tags named by name or uuid.
import type { Agent, Chatbot, SourceTag } from '../service/types.js';
import type { SourceRecord } from '../state/types.js';
import { AdminInputError, AdminRefusal } from './errors.js';
import type { AdminContext } from './types.js';

export function channelPlace(ctx: AdminContext): string | undefined {
  return ctx.channel === undefined ? undefined : `${ctx.platform}:${ctx.workspace}:${ctx.channel}`;
}

export function workspacePlace(ctx: AdminContext): string {
  return `${ctx.platform}:${ctx.workspace}`;
}

/** Identifiers are 32 hex characters in practice, dashed UUIDs elsewhere. */
export function looksLikeId(value: string): boolean {
  return (
    /^[0-9a-f]{32}$/i.test(value) || /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(value)
  );
}

/**
 * One item by uuid, else by case-insensitive name. Several items with that name: an error
 * listing them, so the user can pick by uuid.
 */
export function pick<T extends { uuid: string }>(
  items: readonly T[],
  ref: string,
  nameOf: (item: T) => string,
  what: string,
  argument: string,
): T {
  const byId = items.find((item) => item.uuid === ref);
  if (byId) return byId;
  const wanted = ref.trim().toLowerCase();
  const named = items.filter((item) => nameOf(item).trim().toLowerCase() === wanted);
  if (named.length === 1) return named[0] as T;
  if (named.length > 1) {
    const list = named.map((item) => `"${nameOf(item)}" (${item.uuid})`).join(', ');
    throw new AdminInputError(
      argument,
      `"${ref}" matches ${named.length} ${what}s: ${list}; give the uuid instead`,
    );
  }
  const known =
    items.length === 0
      ? `there are no ${what}s yet`
      : `known: ${items.map(nameOf).slice(0, 10).join(', ')}`;
  throw new AdminInputError(argument, `no ${what} named "${ref}" or with that uuid (${known})`);
}

export interface CurrentChatbot {
  uuid: string;
  /** The chatbot itself when it was looked up (explicit reference). */
  chatbot?: Chatbot;
  /** Where it came from, for messages. */
  via: 'option' | 'channel' | 'workspace' | 'default';
}

export async function resolveChatbotRef(
  ctx: AdminContext,
  ref: string,
  argument: string,
): Promise<Chatbot> {
  const chatbots = await ctx.client.listChatbots();
  return pick(chatbots, ref, (c) => c.name, 'chatbot', argument);
}

/** The chatbot a command acts on. An explicit --chatbot wins over the bindings of this place. */
export async function currentChatbot(ctx: AdminContext, ref: unknown): Promise<CurrentChatbot> {
  if (typeof ref === 'string' && ref !== '') {
    const chatbot = await resolveChatbotRef(ctx, ref, '--chatbot');
    return { uuid: chatbot.uuid, chatbot, via: 'option' };
  }
  const channel = channelPlace(ctx);
  const bound = channel === undefined ? undefined : await ctx.state.bindings.get(channel);
  if (bound) return { uuid: bound, via: 'channel' };
  const fallback = await ctx.state.bindings.get(workspacePlace(ctx));
  if (fallback) return { uuid: fallback, via: 'workspace' };
  // Where nothing is bound, the chatbot that answers here is the configured default.
  if (ctx.defaultChatbot) {
    const chatbot = await resolveChatbotRef(ctx, ctx.defaultChatbot, 'CHATBRIDGE_CHATBOT');
    return { uuid: chatbot.uuid, chatbot, via: 'default' };
  }
  throw new AdminRefusal(
    'No chatbot is bound here. Bind one with `chatbot use <chatbot>` (this channel) or ' +
      '`chatbot default <chatbot>` (the whole workspace), or add `--chatbot <name>`.',
  );
}

export async function resolveAgent(
  ctx: AdminContext,
  chatbotUuid: string,
  ref: string,
): Promise<Agent> {
  const agents = await ctx.client.listAgents(chatbotUuid);
  return pick(agents, ref, (a) => a.name, 'agent', '<agent>');
}

export async function resolveTag(
  ctx: AdminContext,
  chatbotUuid: string,
  ref: string,
): Promise<SourceTag> {
  const tags = await ctx.client.listSourceTags(chatbotUuid);
  return pick(tags, ref, (t) => t.name, 'tag', '<tag>');
}

/**
 * A data source by title or uuid from the registry of sources added through chatbridge (the
 * service cannot list them). A uuid the registry does not know is taken as given.
 */
export async function resolveSource(
  ctx: AdminContext,
  chatbotUuid: string,
  ref: string,
  argument: string,
): Promise<SourceRecord | { uuid: string; title?: undefined }> {
  const records = await ctx.state.sources.list(chatbotUuid);
  try {
    return pick(records, ref, (r) => r.title, 'source', argument);
  } catch (error) {
    if (looksLikeId(ref) && !(error instanceof AdminInputError && error.rule.includes('matches'))) {
      return { uuid: ref };
    }
    throw error;
  }
}

export async function resolveSources(
  ctx: AdminContext,
  chatbotUuid: string,
  refs: readonly string[],
  argument: string,
): Promise<string[]> {
  const uuids: string[] = [];
  for (const ref of refs) {
    const { uuid } = await resolveSource(ctx, chatbotUuid, ref, argument);
    if (!uuids.includes(uuid)) uuids.push(uuid);
  }
  return uuids;
}
