// A Slack thread's earlier messages, for the engine's thread context: conversations.replies
// (the manifest's channels/groups/im/mpim:history scopes), read in pages up to a bound, names
// from users.info (cached), Slack markup turned into plain words, the bot's own answers marked.
import type { EarlierMessage } from '../../src/bridge/types.js';
import { slackToPlainText } from './format.js';
import type { SlackUsers } from './users.js';
import type { SlackApi } from './web.js';

/** Messages asked for per page (Slack recommends no more than 200). */
export const REPLIES_PAGE_SIZE = 200;
/** Pages read at most: a thread longer than this is read from its start up to here. */
export const MAX_REPLIES_PAGES = 5;
/** Subtypes that are someone saying something; joins, topic changes and the like are left out. */
const SAID = new Set([undefined, 'file_share', 'thread_broadcast', 'bot_message', 'me_message']);

interface RepliesMessage {
  ts?: string;
  user?: string;
  bot_id?: string;
  username?: string;
  bot_profile?: { name?: string };
  subtype?: string;
  text?: string;
}

interface RepliesResult {
  messages?: RepliesMessage[];
  response_metadata?: { next_cursor?: string };
}

export interface ThreadHistoryDeps {
  api: SlackApi;
  users: SlackUsers;
  botUserId(workspace: string): string | undefined;
}

export interface ThreadHistoryPlace {
  workspace: string;
  channel: string;
  threadTs: string;
  /** The question's ts: only messages before it are read. */
  beforeTs: string;
}

/** Slack timestamps ("seconds.micros") in time order, without float rounding. */
export function compareTs(a: string, b: string): number {
  const [as = '0', af = ''] = a.split('.');
  const [bs = '0', bf = ''] = b.split('.');
  return Number(as) - Number(bs) || af.padEnd(6, '0').localeCompare(bf.padEnd(6, '0'));
}

async function authorOf(
  message: RepliesMessage,
  workspace: string,
  users: SlackUsers,
): Promise<string> {
  if (message.user) return users.nameOf(workspace, message.user);
  return message.bot_profile?.name ?? message.username ?? 'a bot';
}

/**
 * Up to `limit` of the newest messages before the question, oldest first. The call is paced
 * without waiting ("try"): when Slack's budget is spent it fails, and the question goes alone.
 */
export async function readEarlierMessages(
  deps: ThreadHistoryDeps,
  place: ThreadHistoryPlace,
  limit: number,
): Promise<EarlierMessage[]> {
  const { api, users } = deps;
  const botUserId = deps.botUserId(place.workspace);
  const seen = new Map<string, RepliesMessage>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_REPLIES_PAGES; page += 1) {
    const result = (await api.call(
      place.workspace,
      'conversations.replies',
      {
        channel: place.channel,
        ts: place.threadTs,
        latest: place.beforeTs,
        inclusive: false,
        limit: REPLIES_PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      },
      'try',
    )) as RepliesResult;
    for (const message of result.messages ?? []) {
      // Slack repeats the thread's parent on every page.
      if (message.ts && compareTs(message.ts, place.beforeTs) < 0) seen.set(message.ts, message);
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  const kept = [...seen.values()]
    .filter((message) => SAID.has(message.subtype))
    .sort((a, b) => compareTs(a.ts!, b.ts!))
    .slice(-limit);
  return Promise.all(
    kept.map(async (message) => {
      const fromAssistant = botUserId !== undefined && message.user === botUserId;
      return {
        author: fromAssistant ? 'assistant' : await authorOf(message, place.workspace, users),
        text: slackToPlainText(message.text ?? '', botUserId),
        fromAssistant,
      };
    }),
  );
}
