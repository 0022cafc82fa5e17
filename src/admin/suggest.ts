// Autocomplete for references (Discord): chatbots, agents, sources and tags whose name starts
// with (then contains) what was typed. Values are uuids. Never throws: no chatbot bound or a
// service failure gives no suggestions.
import { currentChatbot } from './resolve.js';
import type { AdminContext, ReferenceKind, Suggestion } from './types.js';

/** Discord's limits: 25 choices, 100 characters per name and value. */
const MAX_SUGGESTIONS = 25;
const MAX_NAME = 100;

interface Named {
  name: string;
  uuid: string;
}

export interface SuggestOptions {
  /** The --chatbot option as typed so far, for agents, sources and tags. */
  chatbot?: string;
}

async function candidates(
  kind: ReferenceKind,
  ctx: AdminContext,
  options: SuggestOptions,
): Promise<Named[]> {
  if (kind === 'chatbot') return ctx.client.listChatbots();
  const { uuid } = await currentChatbot(ctx, options.chatbot);
  if (kind === 'agent') return ctx.client.listAgents(uuid);
  if (kind === 'tag') return ctx.client.listSourceTags(uuid);
  const records = await ctx.state.sources.list(uuid);
  return records.map((r) => ({ name: r.title, uuid: r.uuid }));
}

function label(item: Named, duplicated: boolean): string {
  const name = duplicated ? `${item.name} (${item.uuid.slice(0, 8)})` : item.name;
  return name.length > MAX_NAME ? `${name.slice(0, MAX_NAME - 1)}…` : name;
}

export async function suggest(
  kind: ReferenceKind,
  prefix: string,
  ctx: AdminContext,
  options: SuggestOptions = {},
): Promise<Suggestion[]> {
  let items: Named[];
  try {
    items = await candidates(kind, ctx, options);
  } catch {
    return [];
  }
  const typed = prefix.trim().toLowerCase();
  const starts = items.filter(
    (i) => i.name.toLowerCase().startsWith(typed) || i.uuid === prefix.trim(),
  );
  const contains = items.filter((i) => !starts.includes(i) && i.name.toLowerCase().includes(typed));
  const counts = new Map<string, number>();
  for (const item of items)
    counts.set(item.name.toLowerCase(), (counts.get(item.name.toLowerCase()) ?? 0) + 1);
  return [...starts, ...contains].slice(0, MAX_SUGGESTIONS).map((item) => ({
    name: label(item, (counts.get(item.name.toLowerCase()) ?? 0) > 1),
    value: item.uuid,
  }));
}
