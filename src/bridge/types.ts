// The seam between the conversation engine and a platform adapter. The engine owns what is said
// and when; the adapter owns how it looks and which API calls make it so.
import { CodedError, ErrorCode } from '../errors.js';
import type { EarlierMessage } from './thread-context.js';

export type { EarlierMessage, ThreadContextBounds } from './thread-context.js';
// The bounds admins may set (src/admin reads the bridge through this file only).
export { DEFAULT_THREAD_CONTEXT_BOUNDS, THREAD_CONTEXT_LIMITS } from './thread-context.js';
// The assistant pane's defaults, limits and settings lookup (admin commands read them here).
export {
  ASSISTANT_LIMITS,
  DEFAULT_ASSISTANT_GREETING,
  DEFAULT_ASSISTANT_PROMPTS,
  effectiveAssistantSettings,
  type EffectiveAssistantSettings,
  type SettingSource,
} from './assistant.js';

/** "A user wrote X in thread T", in platform-neutral terms. */
export interface IncomingMessage {
  /** Adapter name, e.g. "slack", "discord", "console". Only used in keys and variables. */
  platform: string;
  /** Slack team id, Discord guild id ("@dm" for Discord DMs), console: "local". */
  workspace: string;
  channel: string;
  /** Thread root id (Slack thread_ts, Discord thread channel id, a DM's channel id). */
  thread: string;
  /** Platform message id, for de-duplication and ordering. */
  messageId: string;
  userId: string;
  userName: string;
  channelName?: string;
  /**
   * The channel whose binding picks the chatbot, when it is not the one written in: in an
   * assistant pane, the channel the person is viewing. Its workspace binding and the default
   * still apply after it.
   */
  bindingChannel?: string;
  text: string;
}

export interface ThreadRef {
  platform: string;
  workspace: string;
  channel: string;
  thread: string;
}

/** Pacing and size of one platform's messages: data the renderer reads, never a branch. */
export interface SurfaceLimits {
  /** Most characters of content in one message (Discord 2000, Slack ~9000 safe, console ∞). */
  maxChars: number;
  /** Least time between two visible updates of one message. */
  minUpdateMs: number;
  /** Finish a message and continue in a new one before it is this old (Slack streams expire). */
  maxMessageAgeMs?: number;
  /** How often the "working" indicator must be refreshed while waiting (Discord typing ~8 s). */
  workingRefreshMs?: number;
  /**
   * Whether the surface shows 👍/👎 controls under a final answer. The engine then remembers
   * the answer (state.feedback) and hands its reference to the last message's finish().
   */
  feedback?: boolean;
}

/**
 * A final answer people may vote on, in platform-neutral terms: the adapter renders its own
 * controls carrying `answerId` (short enough for any button key) and looks the answer up by it.
 */
export interface AnswerRef {
  /** The service's uuid of the stored message; state.feedback.answer() finds it. */
  answerId: string;
}

/** One numbered source under an answer. */
export interface Source {
  /** Footnote number as it appears in the text ([1], [2], … in order of first use). */
  number: number;
  title: string;
  link?: string;
  dataSourceUuid: string;
  fileName?: string;
}

/** `incomplete`: the surface refused a message the answer needed; what it shows is partial. */
export type NoticeKind =
  | 'unavailable'
  | 'timeout'
  | 'rate_limited'
  | 'cut_off'
  | 'not_configured'
  | 'error'
  | 'incomplete';

/** A short, final word to the user about something that went wrong. */
export interface Notice {
  kind: NoticeKind;
  text: string;
}

export interface FinalContent {
  /**
   * This message's final text (markdown, already split to fit maxChars). "" when the message
   * only carries a notice (nothing was said before the failure); "…" (CONTINUATION_MARKER) for
   * a message opened while streaming that the shorter final answer no longer needs.
   */
  text: string;
  /** Sources, on the last message of an answer only. */
  sources: Source[];
  /** Set on the last message of an answer that failed. */
  notice?: Notice;
  /** On the last message of a complete answer, where the surface takes votes (limits.feedback). */
  feedback?: AnswerRef;
}

/** Given by the adapter for one answer in one thread. */
export interface ReplyTarget {
  readonly limits: SurfaceLimits;
  /** Shows that work has started (typing, thinking status). Refreshed by the engine. */
  showWorking(): Promise<void>;
  /** Clears the working indicator, where the platform has one to clear. */
  stopWorking(): Promise<void>;
  /** Posts a new message with its first text: the first words, or a continuation. */
  openMessage(text: string): Promise<ReplyMessage>;
  /**
   * Where the thread may have messages before this question (a thread people started, a reply
   * chain): reads up to `limit` of the newest of them, oldest first, the question excluded. The
   * engine calls it only for the first question in a thread it never answered in; a rejection
   * sends the question alone.
   */
  earlierMessages?(limit: number): Promise<EarlierMessage[]>;
  /**
   * Takeover of an answer a dead replica left half-done: ends the messages it had opened (ids
   * from ReplyMessage.id) with `notice`, so none stays open or looks like the whole answer.
   */
  closeInterrupted?(
    messageIds: readonly string[],
    notice: string,
    /** The holder died while opening a message: also find what it opened (no id recorded). */
    options?: { unrecorded?: boolean },
  ): Promise<void>;
}

/** How far an answer got, as the engine records it for a takeover (kept with the event). */
export interface AnswerProgress {
  /** The session the question was sent to, and exactly what was sent. */
  sessionUuid?: string;
  query?: string;
  /** The platform ids of the messages opened for the answer. */
  opened?: string[];
  /**
   * A message was being opened: set before the platform is asked, cleared once its id is
   * recorded. Found set by a taker, the platform may hold an open message no id names.
   */
  opening?: boolean;
  /**
   * The final answer is on screen (set once it is shown, before the thread's sign of work is
   * cleared and the event finished): a taker has nothing to deliver again.
   */
  delivered?: boolean;
}

/** A kept event's answer as the engine runs it (src/bridge/intake.ts makes them). */
export interface AnswerJob {
  /** A takeover: what the replica that died while answering had recorded. */
  readonly previous?: AnswerProgress;
  /** Records progress where any replica finds it; resolves once kept (failures logged). */
  record(progress: AnswerProgress): Promise<void>;
  /**
   * Graceful shutdown cut the answer: whether another process will take the event over (a
   * live replica on Redis, this process's next start on SQLite). Absent: nobody can.
   */
  canHandOff?(): Promise<boolean>;
  /** Leaves the event unfinished for that process, at once (its finish() then does nothing). */
  handOff?(): Promise<void>;
}

export interface ReplyMessage {
  /**
   * The platform's id of the message (Slack ts, Discord message id), where it has one: kept
   * with the event, so a replica taking over a dead one's answer can close what it left open.
   */
  readonly id?: string;
  /** The whole visible text so far (the adapter may diff and append). */
  update(text: string): Promise<void>;
  /** The final state of this message. Always called exactly once per opened message. */
  finish(content: FinalContent): Promise<void>;
}

/**
 * Thrown by an adapter's update/openMessage when the platform said "slow down": the renderer
 * waits retryAfterMs, then sends the latest text (never the stale one).
 */
export class SurfaceRateLimitError extends CodedError {
  constructor(
    readonly retryAfterMs: number,
    message = `rate limited for ${retryAfterMs} ms`,
  ) {
    super(ErrorCode.SurfaceRateLimited, message);
    this.name = 'SurfaceRateLimitError';
  }
}

export function threadKey(ref: ThreadRef): string {
  return [ref.platform, ref.workspace, ref.channel, ref.thread].join(':');
}

/** The conversation engine as adapters see it (implemented in src/bridge/engine.ts). */
export interface Conversation {
  /**
   * Answers one message in its thread, after every earlier message of that thread (FIFO).
   * Resolves when the answer reached its final state; service failures end in a notice on the
   * target, they do not reject.
   */
  handle(message: IncomingMessage, target: ReplyTarget, job?: AnswerJob): Promise<void>;
  /**
   * Whether the thread has a session, or had one before a reset (follow-ups there need no
   * mention): a reset thread stays known.
   */
  hasSession(thread: ThreadRef): Promise<boolean>;
  /**
   * Ends the thread's current session: the next message there opens a new one. The thread stays
   * known (hasSession stays true). A no-op for a thread that never had a session.
   */
  reset(thread: ThreadRef): Promise<void>;
}

/** A running platform surface, as `chatbridge start` manages it. */
export interface ChatAdapter {
  readonly name: string;
  start(): Promise<void>;
  /**
   * Takes no new work, lets answers in progress finish (a bounded time), then disconnects.
   * Events it refuses meanwhile are left for another replica or the restart.
   */
  stop(): Promise<void>;
  /** Why the platform is not connected right now; undefined when it is (GET /readyz). */
  notReady?(): string | undefined;
  /**
   * The connections this process holds once started (Discord: one per gateway shard), each
   * with why it is not ready now; GET /readyz and /metrics show each by name.
   */
  connections?(): PlatformConnection[];
}

/** One connection an adapter holds, named by a closed set (for example "shard 1/2"). */
export interface PlatformConnection {
  name: string;
  /** Why it is not ready; undefined when it is. */
  notReady?: string;
}
