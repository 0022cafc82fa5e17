// A replica that died mid-answer leaves its message open: a stream never stopped, or a posted
// message showing part of the answer. The replica taking the answer over ends each one with the
// notice: a stream is stopped with it appended; a message that no longer streams is replaced
// by it (the complete answer follows in a new message). Failures are logged by the engine.
//
// A replica that died between Slack's answer to chat.startStream (or chat.postMessage) and
// recording the message's ts left only its intent (AnswerProgress.opening): the taker reads the
// thread after the question and stops every stream of the bot's there that no recorded ts names.
// The engine runs the takeover inside the thread's lock, so no live answer in this thread is
// streaming then: a bot stream still open there is an orphan. A message of the bot's that is not
// streaming is left as it is (it may be an earlier, complete answer; nothing says it is ours).
import type { ReplyTarget } from '../../src/bridge/types.js';
import { slackMarkdown } from './escape.js';
import { compareTs, MAX_REPLIES_PAGES, REPLIES_PAGE_SIZE } from './thread-history.js';
import { errorCode, type SlackApi } from './web.js';

/** Slack's answer to stopping a message that is not streaming (any more, or never was). */
const NOT_STREAMING = new Set(['message_not_in_streaming_state', 'not_in_streaming_state']);

export interface InterruptedPlace {
  workspace: string;
  channel: string;
  /** The thread the answer went to, and the question's own ts (the answer came after it). */
  threadTs: string;
  questionTs: string;
  /** The bot's user id in the workspace: whose messages are ours. */
  botUserId: string | undefined;
}

/** The reply target's closeInterrupted for an answer to the question at `place`. */
export function interruptedCloser(
  api: SlackApi,
  place: InterruptedPlace,
): NonNullable<ReplyTarget['closeInterrupted']> {
  return async (ids, notice, options) => {
    await closeInterruptedMessages(api, place, ids, notice);
    if (options?.unrecorded) await closeUnrecordedStreams(api, place, ids, notice);
  };
}

async function closeInterruptedMessages(
  api: SlackApi,
  place: { workspace: string; channel: string },
  ids: readonly string[],
  notice: string,
): Promise<void> {
  for (const ts of ids) {
    if (await stopWithNotice(api, place, ts, notice)) continue;
    await api.deliver(place.workspace, 'chat.update', {
      channel: place.channel,
      ts,
      markdown_text: slackMarkdown(notice),
    });
  }
}

/** Stops the bot's streams in the thread after the question that no recorded ts names. */
async function closeUnrecordedStreams(
  api: SlackApi,
  place: InterruptedPlace,
  recorded: readonly string[],
  notice: string,
): Promise<void> {
  if (!place.botUserId) return; // cannot tell ours from another bot's
  const candidates = (await botMessagesAfter(api, place)).filter((ts) => !recorded.includes(ts));
  for (const ts of candidates) await stopWithNotice(api, place, ts, notice);
}

/** Stops a stream with the notice appended; false when the message was not streaming. */
async function stopWithNotice(
  api: SlackApi,
  place: { workspace: string; channel: string },
  ts: string,
  notice: string,
): Promise<boolean> {
  // The notice is ours, but it goes out the way every answer text does.
  try {
    await api.deliver(place.workspace, 'chat.stopStream', {
      channel: place.channel,
      ts,
      markdown_text: `\n\n${slackMarkdown(notice)}`,
    });
    return true;
  } catch (error) {
    if (NOT_STREAMING.has(errorCode(error) ?? '')) return false;
    throw error;
  }
}

interface RepliesPage {
  messages?: { ts?: string; user?: string }[];
  response_metadata?: { next_cursor?: string };
}

/** The ts of the bot's messages in the thread after the question, oldest first. */
async function botMessagesAfter(api: SlackApi, place: InterruptedPlace): Promise<string[]> {
  const found = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_REPLIES_PAGES; page += 1) {
    const result = (await api.deliver(place.workspace, 'conversations.replies', {
      channel: place.channel,
      ts: place.threadTs,
      oldest: place.questionTs,
      inclusive: false,
      limit: REPLIES_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    })) as RepliesPage;
    for (const message of result.messages ?? []) {
      const { ts, user } = message;
      // Slack repeats the thread's parent on every page; `oldest` is checked here too.
      if (ts && user === place.botUserId && compareTs(ts, place.questionTs) > 0) found.add(ts);
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return [...found].sort(compareTs);
}
