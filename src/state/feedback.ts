// Votes on answers: a row per person and answer (changing the vote replaces it), the answers
// they may be cast on (remembered for a while when given), and a time index so admins can list
// rows since a date without reading the whole namespace. The index is a Redis sorted set on
// Redis (ZADD is atomic, so concurrent votes on several replicas never lose an entry), and
// per-day keyv buckets on memory and SQLite (one process: changes are serialized here).
import { createHash } from 'node:crypto';
import type { Keyv } from 'keyv';
import type { RedisClient } from './keyv.js';
import type {
  AnswerRecord,
  FeedbackFilter,
  FeedbackRecord,
  FeedbackStore,
  FeedbackVote,
} from './types.js';

/** Characters of an answer kept with it (enough to recognise it; the service keeps it all). */
const ANSWER_EXCERPT_CHARS = 500;
/** Characters of a question kept (the service's own bound on a query is larger). */
const QUESTION_CHARS = 4000;
/** Characters of a 👎 reason kept. */
export const REASON_CHARS = 500;
/** How long an answer can be voted on after it was given: 90 days. */
const DEFAULT_ANSWER_TTL_MS = 90 * 24 * 60 * 60_000;

/** Row ids by when they last changed (ms since epoch). */
export interface FeedbackIndex {
  touch(id: string, at: number): Promise<void>;
  /** Ids changed at or after `since`, newest first. */
  since(since: number): Promise<string[]>;
}

export class RedisFeedbackIndex implements FeedbackIndex {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.key = `${prefix}:feedback-index`;
  }

  async touch(id: string, at: number): Promise<void> {
    await this.redis.zAdd(this.key, { score: at, value: id });
  }

  async since(since: number): Promise<string[]> {
    const ids = await this.redis.zRangeByScore(this.key, since, '+inf');
    return ids.reverse();
  }
}

type Entry = [id: string, at: number];

const dayOf = (at: number): string => new Date(at).toISOString().slice(0, 10);

/**
 * One bucket of entries per UTC day, the list of days, and each row's day: a vote rewrites only
 * its day's bucket, so its cost does not grow with all the votes ever cast.
 */
export class KeyvFeedbackIndex implements FeedbackIndex {
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly space: Keyv<Entry[] | string[] | string>) {}

  private async bucket(day: string): Promise<Entry[]> {
    return ((await this.space.get(`day:${day}`)) as Entry[] | undefined) ?? [];
  }

  touch(id: string, at: number): Promise<void> {
    const next = this.last.then(async () => {
      const day = dayOf(at);
      const before = (await this.space.get(`row:${id}`)) as string | undefined;
      if (before !== undefined && before !== day) {
        const old = (await this.bucket(before)).filter(([each]) => each !== id);
        await this.space.set(`day:${before}`, old);
      }
      const entries = (await this.bucket(day)).filter(([each]) => each !== id);
      entries.push([id, at]);
      await this.space.set(`day:${day}`, entries);
      if (before !== day) await this.space.set(`row:${id}`, day);
      const days = ((await this.space.get('days')) as string[] | undefined) ?? [];
      if (!days.includes(day)) await this.space.set('days', [...days, day].sort());
    });
    this.last = next.catch(() => undefined);
    return next;
  }

  async since(since: number): Promise<string[]> {
    await this.last;
    const first = dayOf(Math.max(0, since));
    const days = (((await this.space.get('days')) as string[] | undefined) ?? []).filter(
      (day) => day >= first,
    );
    const buckets = await Promise.all(days.map((day) => this.bucket(day)));
    return buckets
      .flat()
      .filter(([, at]) => at >= since)
      .sort((a, b) => b[1] - a[1])
      .map(([id]) => id);
  }
}

/** The row id of one person's vote on one answer: short, stable, and reveals nothing. */
function feedbackId(answer: AnswerRecord, userId: string): string {
  const key = [answer.platform, answer.workspace, answer.messageUuid, userId].join(':');
  return `fb-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

function requireText(field: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new Error(`feedback ${field}: must be a non-empty string`);
  }
}

const ANSWER_FIELDS = [
  'messageUuid',
  'platform',
  'workspace',
  'channel',
  'thread',
  'chatbotUuid',
  'sessionUuid',
  'question',
  'answeredAt',
] as const;

/** Only the known fields, capped: nothing else a caller passes (a token) is ever stored. */
function cleanAnswer(answer: AnswerRecord): AnswerRecord {
  for (const field of ANSWER_FIELDS) requireText(field, answer[field]);
  return {
    messageUuid: answer.messageUuid,
    platform: answer.platform,
    workspace: answer.workspace,
    channel: answer.channel,
    thread: answer.thread,
    chatbotUuid: answer.chatbotUuid,
    sessionUuid: answer.sessionUuid,
    question: answer.question.slice(0, QUESTION_CHARS),
    answerExcerpt: (answer.answerExcerpt ?? '').slice(0, ANSWER_EXCERPT_CHARS),
    answeredAt: answer.answeredAt,
  };
}

export class KeyvFeedbackStore implements FeedbackStore {
  constructor(
    private readonly answers: Keyv<AnswerRecord>,
    private readonly rows: Keyv<FeedbackRecord>,
    private readonly index: FeedbackIndex,
    private readonly now: () => number = Date.now,
    private readonly answerTtlMs = DEFAULT_ANSWER_TTL_MS,
  ) {}

  private static answerKey(platform: string, workspace: string, messageUuid: string): string {
    return [platform, workspace, messageUuid].join(':');
  }

  async rememberAnswer(answer: AnswerRecord): Promise<void> {
    const clean = cleanAnswer(answer);
    const key = KeyvFeedbackStore.answerKey(clean.platform, clean.workspace, clean.messageUuid);
    await this.answers.set(key, clean, this.answerTtlMs);
  }

  async answer(
    platform: string,
    workspace: string,
    messageUuid: string,
  ): Promise<AnswerRecord | undefined> {
    requireText('messageUuid', messageUuid);
    const key = KeyvFeedbackStore.answerKey(platform, workspace, messageUuid);
    return (await this.answers.get(key)) ?? undefined;
  }

  async vote(
    answer: AnswerRecord,
    userId: string,
    vote: FeedbackVote,
  ): Promise<{ record: FeedbackRecord; previous?: FeedbackVote }> {
    requireText('userId', userId);
    if (vote !== 'up' && vote !== 'down') throw new Error('feedback vote: must be up or down');
    const clean = cleanAnswer(answer);
    const id = feedbackId(clean, userId);
    const at = this.now();
    const stamp = new Date(at).toISOString();
    const before = await this.rows.get(id);
    const record: FeedbackRecord = {
      ...clean,
      id,
      userId,
      vote,
      // A reason explains a 👎: a repeated 👎 keeps it, a 👍 drops it.
      ...(vote === 'down' && before?.vote === 'down' && before.reason
        ? { reason: before.reason }
        : {}),
      createdAt: before?.createdAt ?? stamp,
      updatedAt: stamp,
    };
    await this.rows.set(id, record);
    await this.index.touch(id, at);
    return { record, ...(before ? { previous: before.vote } : {}) };
  }

  async setReason(id: string, reason: string, voter?: string): Promise<FeedbackRecord | undefined> {
    requireText('id', id);
    const text = reason.trim().slice(0, REASON_CHARS);
    const row = await this.rows.get(id);
    if (!row || row.vote !== 'down' || (voter !== undefined && row.userId !== voter)) {
      return undefined;
    }
    const at = this.now();
    const next: FeedbackRecord = { ...row, updatedAt: new Date(at).toISOString() };
    if (text === '') delete next.reason;
    else next.reason = text;
    await this.rows.set(id, next);
    await this.index.touch(id, at);
    return next;
  }

  async get(id: string): Promise<FeedbackRecord | undefined> {
    requireText('id', id);
    return (await this.rows.get(id)) ?? undefined;
  }

  async list(filter: FeedbackFilter = {}): Promise<FeedbackRecord[]> {
    const ids = await this.index.since(filter.since ?? 0);
    if (ids.length === 0) return [];
    const rows = await this.rows.getMany(ids);
    return rows.filter(
      (row): row is FeedbackRecord =>
        row != null &&
        (filter.chatbotUuid === undefined || row.chatbotUuid === filter.chatbotUuid) &&
        (filter.vote === undefined || row.vote === filter.vote) &&
        (filter.workspace === undefined || `${row.platform}:${row.workspace}` === filter.workspace),
    );
  }
}
