// The Slack reply surface for one answer in one thread: limits the engine's renderer reads,
// the working indicator, and messages that stream natively or fall back to post-and-edit.
import type {
  FinalContent,
  ReplyMessage,
  ReplyTarget,
  SurfaceLimits,
} from '../../src/bridge/types.js';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import type { Logger } from '../../src/log.js';
import { isPermanentError, type WorkspaceFeatures } from './features.js';
import {
  EDIT_INTERVAL_MS,
  EditedMessage,
  StreamedMessage,
  withoutClosers,
  type MessageOptions,
} from './messages.js';
import { slackMarkdown } from './escape.js';
import { errorCode, messageTs, type SlackApi } from './web.js';
import { WorkingIndicator } from './working.js';

/**
 * Below the 12,000-character markdown limit, with room for escaping (escape.ts; what escaping
 * still pushes past 12,000 is cut with "…").
 */
export const SLACK_MAX_CHARS = 9000;
/** Slack expires a stream after about five minutes: roll over well before. */
export const SLACK_MAX_MESSAGE_AGE_MS = 270_000;
/** The thread status times out after two minutes: refresh before. */
export const SLACK_WORKING_REFRESH_MS = 100_000;
/** Native appends: first words within a quarter second; pacing keeps us under Tier 4. */
export const SLACK_STREAM_UPDATE_MS = 250;

export interface SlackReplyPlace {
  workspace: string;
  channel: string;
  /** Thread root ts: the user's message for a new thread. */
  threadTs: string;
  /** The user's message (for the fallback reaction). */
  messageTs: string;
  /** The user asking: recipient_user_id / recipient_team_id of streams outside DMs. */
  userId: string;
  userTeam: string;
  isDm: boolean;
}

export interface SlackReplyOptions {
  api: SlackApi;
  features: WorkspaceFeatures;
  logger: Logger;
  now?: () => number;
}

export function slackLimits(nativeStreaming: boolean): SurfaceLimits {
  return {
    maxChars: SLACK_MAX_CHARS,
    minUpdateMs: nativeStreaming ? SLACK_STREAM_UPDATE_MS : EDIT_INTERVAL_MS,
    maxMessageAgeMs: SLACK_MAX_MESSAGE_AGE_MS,
    workingRefreshMs: SLACK_WORKING_REFRESH_MS,
    // 👍/👎 under every complete answer (feedback.ts).
    feedback: true,
  };
}

export function createSlackReplyTarget(
  place: SlackReplyPlace,
  options: SlackReplyOptions,
): ReplyTarget {
  const { api, features, logger } = options;
  const now = options.now ?? Date.now;
  const kind = place.isDm ? 'im' : 'channel';
  const working = new WorkingIndicator(api, features, { ...place, kind }, logger);
  const messageOptions: MessageOptions = { api, place, now };

  const startStream = async (shown: string): Promise<StreamedMessage | undefined> => {
    // Closers the renderer added cannot be taken back from an append-only stream: hold them.
    const text = withoutClosers(shown) || shown;
    try {
      // Tier 2 allows a burst of 5: rather than keep the 6th answer in a burst waiting seconds
      // for a slot, it starts at once as a posted message (Tier 3/4 budgets) and is edited.
      const result = await api.call(
        place.workspace,
        'chat.startStream',
        {
          channel: place.channel,
          thread_ts: place.threadTs,
          markdown_text: text,
          ...(place.isDm
            ? {}
            : { recipient_user_id: place.userId, recipient_team_id: place.userTeam }),
        },
        'try',
      );
      return new StreamedMessage(messageOptions, messageTs(result, 'chat.startStream'), text);
    } catch (error) {
      if (error instanceof SurfaceRateLimitError) {
        logger.debug('slack: no stream slot free now, posting and editing this message');
        return undefined;
      }
      const code = errorCode(error) ?? 'request_failed';
      if (isPermanentError(code)) features.disableStreaming(place.workspace, kind, code);
      logger.info({ code }, 'slack: native streaming refused, posting and editing instead');
      return undefined;
    }
  };

  const open = async (text: string): Promise<StreamedMessage | EditedMessage> => {
    if (text.trim() !== '' && features.streaming(place.workspace, kind)) {
      const streamed = await startStream(text);
      if (streamed) return streamed;
    }
    return EditedMessage.post(messageOptions, text);
  };

  return {
    limits: slackLimits(features.streaming(place.workspace, kind)),
    showWorking: () => working.show(),
    stopWorking: () => working.stop(),
    async openMessage(text: string): Promise<ReplyMessage> {
      return escaped(await open(slackMarkdown(text)));
    },
  };
}

/** The answer's text escaped on its way in (escape.ts): messages.ts only sees Slack's form. */
function escaped(message: StreamedMessage | EditedMessage): ReplyMessage {
  return {
    id: message.ts,
    update: (text: string) => message.update(slackMarkdown(text)),
    finish: (content: FinalContent) =>
      message.finish({ ...content, text: slackMarkdown(content.text) }),
  };
}
