// The Slack reply surface for one answer in one thread: limits the engine's renderer reads,
// the working indicator, and messages that stream natively, fall back to post-and-edit, or, in a
// workspace too busy for either, are posted once, whole, at the end (posted-once.ts).
import type { ShownLater } from '../../src/bridge/observer.js';
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
import { LIVE_EDITED_PER_WORKSPACE, SIGN_BEFORE_POST_MS } from './limits.js';
import { PostedOnce } from './posted-once.js';
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
      // for a slot, it starts at once as a posted message, or is posted whole at its end.
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

  // The method mix under load (limits.ts): a native stream while Tier 2 has a start free; else a
  // posted message edited as the answer grows while few such are open in the workspace and the
  // channel's post allowance has room now; else one post of the whole answer at its end.
  const postAndEdit = async (text: string): Promise<ReplyMessage | undefined> => {
    const release = editedSlots(api).take(place.workspace);
    if (!release) return undefined;
    try {
      const message = await EditedMessage.post(messageOptions, text, 'try');
      return releasedAtFinish(message, release);
    } catch (error) {
      release();
      if (error instanceof SurfaceRateLimitError) return undefined;
      throw error;
    }
  };

  const open = async (text: string): Promise<ReplyMessage> => {
    if (text.trim() !== '' && features.streaming(place.workspace, kind)) {
      const streamed = await startStream(text);
      if (streamed) return streamed;
    }
    const edited = await postAndEdit(text);
    if (edited) return edited;
    logger.debug('slack: busy workspace, this answer is posted whole when complete');
    return new PostedOnce(messageOptions, () => working.shown(SIGN_BEFORE_POST_MS));
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

/** Edited replies open per workspace, per adapter (its SlackApi): LIVE_EDITED_PER_WORKSPACE. */
class EditedSlots {
  private readonly open = new Map<string, number>();

  /** A slot, and how to give it back; undefined when the workspace has none free. */
  take(workspace: string): (() => void) | undefined {
    const count = this.open.get(workspace) ?? 0;
    if (count >= LIVE_EDITED_PER_WORKSPACE) return undefined;
    this.open.set(workspace, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(workspace) ?? 1) - 1;
      if (left > 0) this.open.set(workspace, left);
      else this.open.delete(workspace);
    };
  }
}

const slotsByApi = new WeakMap<SlackApi, EditedSlots>();
function editedSlots(api: SlackApi): EditedSlots {
  let slots = slotsByApi.get(api);
  if (!slots) slotsByApi.set(api, (slots = new EditedSlots()));
  return slots;
}

/** The message, its slot given back once its final text is on screen (or gave up). */
function releasedAtFinish(message: ReplyMessage, release: () => void): ReplyMessage {
  return {
    ...(message.id !== undefined && { id: message.id }),
    update: (text: string) => message.update(text),
    finish: (content: FinalContent) => message.finish(content).finally(release),
  };
}

/** The answer's text escaped on its way in (escape.ts): messages.ts only sees Slack's form. */
function escaped(message: ReplyMessage & Partial<ShownLater>): ReplyMessage {
  return {
    ...(message.id !== undefined && { id: message.id }),
    // A message posted whole at its end: its words show when that post lands (observer.ts).
    ...(message.shown && { shown: message.shown }),
    update: (text: string) => message.update(slackMarkdown(text)),
    finish: (content: FinalContent) =>
      message.finish({ ...content, text: slackMarkdown(content.text) }),
  };
}
