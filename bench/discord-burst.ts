// The Discord bench's burst: many questions at once, each answer streamed and followed on the
// fake until it is whole, with the fake refusing every 4th edit or enforcing Discord's limits.
import { DiscordLimits } from '../test/discord/fake/limits.js';
import type { FakeMessage } from '../test/discord/fake/payloads.js';
import { snowflake, user } from '../test/discord/fake/payloads.js';
import type { EngineRig } from '../test/discord/engine-rig.js';
import {
  answerMessages,
  chunkLags,
  chunks,
  ms,
  paragraphs,
  seen,
  sharedPrefix,
  sleep,
  within,
  type Tracked,
} from './discord-measure.js';
import { percentile, type BenchRow } from './table.js';

const AREA = 'discord';

export type Limits = 'every 4th edit' | 'discord';

/** Questions asked over several channels (servers, shards) instead of the main one. */
export interface Spread {
  /** The channel question `i` is asked in. */
  channelOf(i: number): string;
  /** How the row names the run: "200 concurrent threads over two shards ...". */
  where: string;
  /** How long all answers may take before the row fails. */
  timeoutMs: number;
}

/**
 * 100 questions at once in one channel: every 4th edit refused with a 429 (today's row), or
 * the fake enforcing Discord's own limits (50/s global, 5 per 5 s per channel for posts, edits
 * and typing), with the bot paced by its rate budget (`replicas` label the run).
 */
export async function burst(
  rig: EngineRig,
  threads: number,
  limits: Limits = 'every 4th edit',
  replicas = '',
  spread?: Spread,
): Promise<BenchRow[]> {
  const byQuery = new Map<string, Tracked>();
  const byAsked = new Map<string, Tracked>();
  const closed = new Map<string, number>();
  rig.answerFor = (query) => {
    const tracked = byQuery.get(query);
    if (tracked === undefined) return undefined;
    const pieces = chunks(tracked.text, 50);
    let offset = 0;
    tracked.ends = pieces.map((piece) => (offset += piece.length));
    return {
      pieces,
      before: async (i) => {
        if (i > 0) await sleep(40);
        tracked.handedAt[i] = performance.now();
      },
      onEnd: () => {
        closed.set(query, performance.now());
      },
    };
  };
  // Every create and edit of an answer: how much of its text is visible now.
  const follow = (m: FakeMessage) => {
    const askedId = byAsked.has(m.channel_id) ? m.channel_id : m.message_reference?.message_id;
    const tracked = askedId === undefined ? undefined : byAsked.get(askedId);
    if (!tracked || askedId === undefined) return;
    const visible = answerMessages(rig, askedId)
      .map((message) => message.content)
      .join('\n');
    const length = sharedPrefix(visible, tracked.text);
    const last = tracked.shown[tracked.shown.length - 1];
    if (!last || length > last[1]) tracked.shown.push([performance.now(), length]);
  };
  rig.fake.on('message', follow);
  rig.fake.on('edit', follow);
  let patches = 0;
  let refused = 0;
  if (limits === 'discord') {
    rig.fake.limits = new DiscordLimits();
    rig.fake.on('request', (request: { method: string }) => {
      if (request.method === 'PATCH') patches += 1;
    });
  } else {
    rig.fake.rateLimiter = (request) => {
      if (request.method !== 'PATCH') return undefined;
      patches += 1;
      if (patches % 4 !== 0) return undefined;
      refused += 1;
      return 250;
    };
  }
  const started = performance.now();
  const done: Promise<{ lag: number; ok: boolean }>[] = [];
  const askedIds: string[] = [];
  for (let i = 0; i < threads; i++) {
    const query = `burst question ${i}`;
    const text = `Answer ${i}: ${paragraphs(`t${i}x`, 1200)}`;
    const tracked: Tracked = { text, ends: [], handedAt: [], shown: [] };
    byQuery.set(query, tracked);
    const author = user(String(300000000000000000n + BigInt(i)), `user${i}`);
    const askedId = snowflake();
    byAsked.set(askedId, tracked);
    const asked = rig.fake.userMessage(
      spread?.channelOf(i) ?? rig.fake.textChannel.id,
      author,
      `<@${rig.fake.bot.id}> ${query}`,
      { mentions: [rig.fake.bot], id: askedId },
    );
    askedIds.push(asked.id);
    done.push(
      seen(rig, asked.id, (c) => c.endsWith(text.slice(-30))).then((at) => {
        const content = answerMessages(rig, asked.id)
          .map((m) => m.content)
          .join('\n');
        return { lag: at - (closed.get(query) ?? at), ok: content === text };
      }),
    );
  }
  let results: { lag: number; ok: boolean }[];
  try {
    results = await within(Promise.all(done), spread?.timeoutMs ?? 45_000, 'burst');
  } finally {
    rig.fake.off('message', follow);
    rig.fake.off('edit', follow);
    rig.fake.rateLimiter = undefined;
  }
  const fakeLimits = rig.fake.limits;
  rig.fake.limits = undefined;
  const wall = performance.now() - started;
  const lost = results.filter((r) => !r.ok).length;
  const inThreads = askedIds.filter((id) => rig.fake.channels.has(id)).length;
  const p95 = percentile(
    results.map((r) => r.lag),
    95,
  );
  const lags = [...byQuery.values()].flatMap(chunkLags);
  const chunkCount = [...byQuery.values()].reduce((sum, t) => sum + t.ends.length, 0);
  const p95Chunk = percentile(lags, 95);
  const p50Chunk = percentile(lags, 50);
  if (limits === 'discord') {
    const tooMany = (fakeLimits?.globalRefusals ?? 0) + (fakeLimits?.routeRefusals ?? 0);
    const where =
      spread?.where ??
      `${threads} concurrent threads, one channel, Discord's limits enforced${replicas}`;
    return [
      {
        area: AREA,
        metric: `${where}: 429s (global/route), answers with lost text`,
        value: `${tooMany} (${fakeLimits?.globalRefusals ?? 0}/${fakeLimits?.routeRefusals ?? 0}), ${lost} lost; ${inThreads} in threads, ${patches} edits`,
        target: '0 429s, 0 lost',
        ok: tooMany === 0 && lost === 0,
      },
      {
        area: AREA,
        metric: `${where}: lag chunk → shown, p95 (p50 ${ms(p50Chunk)}, ${lags.length}/${chunkCount} chunks)`,
        value: ms(p95Chunk),
        // The 2 s target is for 100 threads; more threads at once outgrow the bot's requests a
        // second (each streaming answer wants an edit a second), so their lag is reported only.
        ...(threads <= 100 ? { target: '<= 2000 ms', ok: p95Chunk <= 2000 } : { target: '' }),
      },
      {
        area: AREA,
        metric: `${where}: final text after stream close, p95 (all done in ${(wall / 1000).toFixed(1)} s)`,
        value: ms(p95),
        target: '',
      },
    ];
  }
  return [
    {
      area: AREA,
      metric:
        `${threads} concurrent questions in one channel (${inThreads} in threads), ` +
        `${refused}/${patches} edits got 429: answers with lost text`,
      value: String(lost),
      target: '0',
      ok: lost === 0,
    },
    {
      area: AREA,
      metric:
        `${threads} concurrent threads: lag from a chunk arriving to it being shown, p95 ` +
        `(${lags.length}/${chunkCount} chunks, p50 ${ms(p50Chunk)}; edits paced 1/s per message)`,
      value: ms(p95Chunk),
      target: '',
    },
    {
      area: AREA,
      metric: `${threads} concurrent threads: final text after stream close, p95 (all done in ${(wall / 1000).toFixed(1)} s)`,
      value: ms(p95),
      target: '',
    },
  ];
}
