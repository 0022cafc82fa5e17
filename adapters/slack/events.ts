// Which Slack messages get an answer, and in which thread. Mentions are answered (app_mention),
// follow-ups in a thread that already has a session need no mention, DMs are always answered.
// Duplicate deliveries (retries, a second replica) are dropped via the shared store.
import type { Conversation, IncomingMessage, ThreadRef } from '../../src/bridge/types.js';
import type { StateStore } from '../../src/state/types.js';
import { mentions, slackToPlainText } from './format.js';
import { createSlackReplyTarget, type SlackReplyOptions } from './reply.js';
import type { SlackUsers } from './users.js';

/** Longer than Slack's last retry (about an hour apart in the worst case is retried thrice). */
export const DEDUP_TTL_MS = 15 * 60_000;
/** Subtypes that are still a person writing; everything else (edits, joins, bots) is ignored. */
const USER_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  user_team?: string;
  team?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  hidden?: boolean;
}

export interface EventEnvelope {
  team_id?: string;
  event_id?: string;
}

export interface EventRouterDeps extends SlackReplyOptions {
  conversation: Conversation;
  state: StateStore;
  users: SlackUsers;
  /** The bot's own user id (from auth.test). */
  botUserId: () => string | undefined;
}

export type RouteDecision = 'answered' | 'ignored' | 'duplicate';

function isDirect(event: SlackMessageEvent): boolean {
  return (
    event.channel_type === 'im' ||
    (event.channel_type === undefined && !!event.channel?.startsWith('D'))
  );
}

export class EventRouter {
  constructor(private readonly deps: EventRouterDeps) {}

  /** Decides and, when it is ours to answer, answers (resolves when the answer is final). */
  async route(event: SlackMessageEvent, envelope: EventEnvelope): Promise<RouteDecision> {
    const { conversation, state, users, logger } = this.deps;
    const botUserId = this.deps.botUserId();
    if (event.bot_id || event.hidden || !USER_SUBTYPES.has(event.subtype)) return 'ignored';
    if (!event.user || event.user === botUserId || !event.channel || !event.ts) return 'ignored';
    const workspace = envelope.team_id ?? event.team;
    if (!workspace) return 'ignored';
    const direct = isDirect(event);
    const threadTs = event.thread_ts ?? event.ts;
    const ref: ThreadRef = {
      platform: 'slack',
      workspace,
      channel: event.channel,
      thread: threadTs,
    };

    if (event.type === 'message' && !direct) {
      // A mention in a channel arrives again as app_mention: answer it there, once.
      if (mentions(event.text, botUserId)) return 'ignored';
      const inThread = event.thread_ts !== undefined && event.thread_ts !== event.ts;
      if (!inThread || !(await conversation.hasSession(ref))) return 'ignored';
    } else if (event.type !== 'message' && event.type !== 'app_mention') {
      return 'ignored';
    }

    if (
      envelope.event_id &&
      !(await state.dedup.claim(`slack:event:${envelope.event_id}`, DEDUP_TTL_MS))
    )
      return 'duplicate';
    const messageKey = `slack:message:${workspace}:${event.channel}:${event.ts}`;
    if (!(await state.dedup.claim(messageKey, DEDUP_TTL_MS))) return 'duplicate';

    const text = slackToPlainText(event.text ?? '', botUserId) || 'Hello';
    const message: IncomingMessage = {
      platform: 'slack',
      workspace,
      channel: event.channel,
      thread: threadTs,
      messageId: event.ts,
      userId: event.user,
      userName: await users.nameOf(workspace, event.user),
      text,
    };
    const target = createSlackReplyTarget(
      {
        workspace,
        channel: event.channel,
        threadTs,
        messageTs: event.ts,
        userId: event.user,
        userTeam: event.user_team ?? event.team ?? workspace,
        isDm: direct,
      },
      this.deps,
    );
    try {
      await conversation.handle(message, target);
    } catch (error) {
      logger.error({ err: error, channel: event.channel }, 'slack: answering failed');
    }
    return 'answered';
  }
}
