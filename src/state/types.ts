// What chatbridge keeps between messages. Every piece of conversation state lives here, never
// only in process memory, so any replica sharing the store can answer any thread.

/**
 * The service session that a chat thread maps to. A thread that was reset keeps its entry (it
 * stays known, so follow-ups there still need no mention) with `sessionUuid === ''` and
 * `resetAt` set: "no current session, open a new one on the next message". chatbotUuid and
 * createdAt then still describe the session it had before the reset.
 */
export interface SessionRef {
  /** '' after a reset: the next message opens a new session. */
  sessionUuid: string;
  chatbotUuid: string;
  /** ISO timestamp of when the bridge opened it. */
  createdAt: string;
  /** ISO timestamp of the reset that cleared sessionUuid; absent on a live session. */
  resetAt?: string;
}

/** thread key ("platform:workspace:channel:thread") → session. */
export interface SessionMap {
  /** The thread's entry, reset ones included (sessionUuid ''); undefined for unknown threads. */
  get(threadKey: string): Promise<SessionRef | undefined>;
  /** Maps the thread to a live session (sessionUuid must be non-empty); clears any resetAt. */
  set(threadKey: string, ref: SessionRef): Promise<void>;
  /**
   * Clears the thread's current session but keeps the thread known: get() then returns the entry
   * with sessionUuid '' and resetAt set. A no-op for a thread with no entry (an unknown thread
   * does not become known by being reset).
   */
  reset(threadKey: string): Promise<void>;
  /** Forgets the thread entirely (it is unknown afterwards). */
  delete(threadKey: string): Promise<void>;
}

/**
 * place → chatbot uuid. A place is "platform:workspace" (the workspace default) or
 * "platform:workspace:channel" (one channel, forum or DM).
 */
export interface BindingMap {
  get(place: string): Promise<string | undefined>;
  set(place: string, chatbotUuid: string): Promise<void>;
  delete(place: string): Promise<void>;
}

/** A data source created through chatbridge (the interface has no list endpoint). */
export interface SourceRecord {
  uuid: string;
  chatbotUuid: string;
  title: string;
  type: string;
  /** Where it came from: the URL, or the reference link of an upload. */
  link?: string;
  createdAt: string;
}

export interface SourceRegistry {
  add(record: SourceRecord): Promise<void>;
  get(uuid: string): Promise<SourceRecord | undefined>;
  /** The chatbot's sources in the order they were added. */
  list(chatbotUuid: string): Promise<SourceRecord[]>;
  update(uuid: string, patch: Partial<Omit<SourceRecord, 'uuid' | 'chatbotUuid'>>): Promise<void>;
}

/**
 * The conversation a platform message belongs to: the fields of the bridge's ThreadRef, kept
 * as plain JSON here because src/state imports nothing above it.
 */
export interface LinkedThread {
  platform: string;
  workspace: string;
  channel: string;
  thread: string;
}

/**
 * Platform message key ("discord:<message id>") → the conversation that message belongs to.
 * Where a platform has no thread for a conversation (Discord's reply fallback), a reply to one
 * of the bot's answers finds its conversation here, on any replica and after a restart. Links
 * expire replyLinkTtlMs after they were set (30 days unless the store is opened otherwise).
 */
export interface ReplyLinkMap {
  /** The linked conversation; undefined for an unknown or expired key. */
  get(messageKey: string): Promise<LinkedThread | undefined>;
  /** Links the message to the conversation (replacing any earlier link) for the TTL from now. */
  set(messageKey: string, thread: LinkedThread): Promise<void>;
}

/**
 * A workspace's thread-context setting: whether a thread's earlier messages go to the chatbot
 * with the first question asked there, and how many. Bounds left out mean the bridge's defaults.
 */
export interface ThreadContextSetting {
  enabled: boolean;
  maxMessages?: number;
  maxChars?: number;
}

/** Workspace ("platform:workspace") → thread-context setting; none stored means on, defaults. */
export interface ThreadContextSettings {
  get(workspace: string): Promise<ThreadContextSetting | undefined>;
  set(workspace: string, setting: ThreadContextSetting): Promise<void>;
}

/**
 * What the person was looking at when they wrote in an assistant pane (Slack's AI side pane):
 * the channel viewed decides which chatbot answers there. Kept per thread key.
 */
export interface ViewingContext {
  /** The channel being viewed; absent when it is no channel (search, a list of DMs). */
  channel?: string;
  /** The workspace of that channel (Slack team id), where the platform says. */
  workspace?: string;
  /** Slack Enterprise Grid organisation id, where there is one. */
  enterprise?: string;
}

/**
 * Thread key → the viewing context of an assistant thread (set when it starts, replaced when
 * the person moves). An entry marks the thread as an assistant thread. Entries last 30 days
 * after they were last set.
 */
export interface ViewingContextMap {
  get(threadKey: string): Promise<ViewingContext | undefined>;
  set(threadKey: string, context: ViewingContext): Promise<void>;
}

/** The assistant pane's greeting and suggested prompts for a place; absent fields inherit. */
export interface AssistantSetting {
  greeting?: string;
  /** In the order shown; [] means "no prompts here". */
  prompts?: string[];
}

/** Place ("platform:workspace" or "platform:workspace:channel") → assistant setting. */
export interface AssistantSettingsMap {
  get(place: string): Promise<AssistantSetting | undefined>;
  /** Replaces the place's setting; an empty one ({}) is the same as delete. */
  set(place: string, setting: AssistantSetting): Promise<void>;
  delete(place: string): Promise<void>;
}

/** A person's verdict on one answer. */
export type FeedbackVote = 'up' | 'down';

/**
 * An answer people may vote on, remembered when it was given: a vote names only the answer
 * (a platform button carries a short key), and the row it makes needs the rest.
 */
export interface AnswerRecord {
  /** The service's uuid of the stored message (question and answer). */
  messageUuid: string;
  platform: string;
  workspace: string;
  channel: string;
  thread: string;
  chatbotUuid: string;
  sessionUuid: string;
  /** The question as the person wrote it (without any thread context sent along). */
  question: string;
  /** The start of the final answer text (feedback.ts caps it). */
  answerExcerpt: string;
  /** ISO timestamp. */
  answeredAt: string;
}

/** One person's vote on one answer: changing the vote replaces it (key platform:workspace:answer:user). */
export interface FeedbackRecord extends AnswerRecord {
  /** Short, stable id of the row (the same for every change of this person's vote). */
  id: string;
  userId: string;
  vote: FeedbackVote;
  /** Why a 👎, when the person said; cleared when the vote becomes 👍. */
  reason?: string;
  /** ISO timestamps: the first vote, and the latest change. */
  createdAt: string;
  updatedAt: string;
}

export interface FeedbackFilter {
  /** Only rows changed at or after this time (ms since epoch). */
  since?: number;
  chatbotUuid?: string;
  vote?: FeedbackVote;
  /** Only rows of this "platform:workspace". */
  workspace?: string;
}

/** Votes on answers, and the answers they may be cast on. No token or secret is ever kept. */
export interface FeedbackStore {
  rememberAnswer(answer: AnswerRecord): Promise<void>;
  /** The remembered answer; undefined when unknown or older than the answer TTL. */
  answer(
    platform: string,
    workspace: string,
    messageUuid: string,
  ): Promise<AnswerRecord | undefined>;
  /** Records the person's vote, replacing an earlier one; `previous` is the vote it replaced. */
  vote(
    answer: AnswerRecord,
    userId: string,
    vote: FeedbackVote,
  ): Promise<{ record: FeedbackRecord; previous?: FeedbackVote }>;
  /**
   * Sets the reason of a 👎 row; undefined when the row is unknown, no longer a 👎, or (with
   * `voter`) someone else's.
   */
  setReason(id: string, reason: string, voter?: string): Promise<FeedbackRecord | undefined>;
  get(id: string): Promise<FeedbackRecord | undefined>;
  /** Matching rows, newest change first. */
  list(filter?: FeedbackFilter): Promise<FeedbackRecord[]>;
}

export interface Dedup {
  /** True for the first claim of a key within ttlMs, false for every later one (any replica). */
  claim(key: string, ttlMs: number): Promise<boolean>;
}

/**
 * Per-thread FIFO: jobs for one thread key run one after another in the order run() was
 * called, none dropped; jobs of different threads run in parallel. The signal aborts when the
 * lock was lost (a Redis lease that could not be renewed), so the job stops writing.
 */
export interface ThreadLocks {
  run<T>(threadKey: string, job: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/**
 * Values already sealed (encrypted) by their owner, kept as they are given: the OAuth
 * installations (src/state/installations.ts encrypts and decrypts them).
 */
export interface SealedMap {
  get(key: string): Promise<string | undefined>;
  set(key: string, sealed: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * An event kept in the intake queue: received, acknowledged to its platform, not yet answered.
 * Payload and note are the adapter's and the bridge's own JSON; the store only keeps them.
 */
export interface KeptEvent {
  /** The store's id of the entry (a stream id on Redis, a row id elsewhere). */
  id: string;
  /** The delivery's identity (e.g. "slack:message:T1:C1:1712.0001"): a second keep() loses. */
  key: string;
  payload: string;
  /** How often the entry was taken: 1 by the replica that kept it, one more per takeover. */
  deliveries: number;
  /** The last note its holder wrote (how far the answer got), for whoever takes it over. */
  note?: string;
}

/**
 * One platform's queue of events taken in and not yet answered, shared by every replica on the
 * store. keep() holds the entry under a lease this process renews while it lives; finish()
 * removes it; an entry whose holder died (lease run out) is taken over by claimExpired().
 */
export interface IntakeQueue {
  /**
   * Keeps the event and holds it. Undefined when the key was kept before (a redelivery, the
   * other replica): nothing to do, the first keeper or a takeover answers it. Rejects when
   * the store cannot keep it (then it must not be acknowledged).
   */
  keep(key: string, payload: string): Promise<KeptEvent | undefined>;
  /** Records how far the work got, for a takeover. Only while this process holds the entry. */
  note(id: string, note: string): Promise<void>;
  /** The work is final: the entry leaves the queue; its key stays known for keyTtlMs. */
  finish(id: string): Promise<void>;
  /** Takes over up to `max` entries whose holder's lease ran out, oldest first. */
  claimExpired(max: number): Promise<KeptEvent[]>;
  /**
   * Graceful shutdown: lets the entry go unfinished, its lease run out now, so the next
   * claimExpired() of another holder takes it over. Only while this process holds it.
   */
  release(id: string): Promise<void>;
  /**
   * Whether an entry released now will be taken over: another live holder on a shared store
   * (Redis), or the next start of this process on a file that outlives it (SQLite); never on
   * memory.
   */
  canHandOff(): Promise<boolean>;
  /** Entries this process holds now. */
  readonly held: number;
}

export interface IntakeStore {
  /** How long an entry's holder may go silent before the entry can be taken over. */
  readonly leaseMs: number;
  /** The queue of one platform ("slack", "discord"): the same instance for the same name. */
  queue(name: string): IntakeQueue;
}

export type { BucketShape, RateBudget } from './rate-budget.js';
import type { RateBudget } from './rate-budget.js';

export interface StateStore {
  readonly sessions: SessionMap;
  readonly bindings: BindingMap;
  readonly sources: SourceRegistry;
  readonly dedup: Dedup;
  readonly locks: ThreadLocks;
  readonly replyLinks: ReplyLinkMap;
  /** Platform API budgets: shared by every replica on Redis, this process's own otherwise. */
  readonly rateBudget: RateBudget;
  readonly threadContext: ThreadContextSettings;
  /** Assistant threads' viewing contexts (Slack's AI side pane). */
  readonly viewingContexts: ViewingContextMap;
  /** Assistant pane greetings and prompts per workspace and channel. */
  readonly assistantSettings: AssistantSettingsMap;
  /** Platform installations made through OAuth, sealed (see installations.ts). */
  readonly installations: SealedMap;
  /** Votes on answers (👍/👎) and the answers they are cast on. */
  readonly feedback: FeedbackStore;
  /**
   * Events taken in and not yet answered (durable intake): a Redis stream's consumer group on
   * Redis, a table on SQLite, this process's own on memory. Absent in test doubles: then events
   * are answered without being kept.
   */
  readonly intake?: IntakeStore;
  close(): Promise<void>;
}
