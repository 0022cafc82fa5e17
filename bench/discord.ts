// Discord rows of `npm run bench`, on the fake Discord (loopback) with the real discord.js
// client, engine, service client and local service. Pacing is the production default (one edit
// per second per message, widened by 429s). Today's burst row refuses every 4th edit; the rows
// beside it have the fake enforce Discord's own limits, with the bot paced by its rate budget,
// in one process and in two processes sharing one Redis.
import { RESTEvents } from 'discord.js';
import { openState } from '../src/state/index.js';
import { TOKEN } from '../test/discord/fake/discord.js';
import { DiscordLimits } from '../test/discord/fake/limits.js';
import type { FakeMessage } from '../test/discord/fake/payloads.js';
import { snowflake, user } from '../test/discord/fake/payloads.js';
import {
  API_KEY,
  startEngineRig,
  type AnswerScript,
  type EngineRig,
} from '../test/discord/engine-rig.js';
import { hasRedisServer, startRedisServer } from '../test/state/redis-server.js';
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
import { startReplicaProcess } from './discord-process.js';
import { percentile, type BenchRow } from './table.js';

const AREA = 'discord';

/** First words after the first chunk, and the final text after the stream closed. */
async function latencies(rig: EngineRig, rounds: number): Promise<BenchRow[]> {
  const firstWords: number[] = [];
  const finals: number[] = [];
  const asker = user('200000000000000001', 'asker');
  for (let round = 0; round < rounds; round++) {
    const answer = `Round ${round} answer. ${paragraphs('w', 300)}`;
    const [head, ...rest] = chunks(answer, 60);
    let threadId = '';
    let firstAt = 0;
    let closedAt = 0;
    let shown: Promise<number> | undefined;
    const script: AnswerScript = {
      pieces: [head!, ...rest],
      before: async (index) => {
        if (index === 0) {
          shown = seen(rig, threadId, (c) => c.startsWith(`Round ${round} answer.`));
          firstAt = performance.now();
        }
        if (index === 1) firstWords.push((await shown!) - firstAt);
      },
      onEnd: () => {
        closedAt = performance.now();
      },
    };
    rig.answerFor = () => script;
    const asked = rig.fake.userMessage(
      rig.fake.textChannel.id,
      asker,
      `<@${rig.fake.bot.id}> round ${round}`,
      {
        mentions: [rig.fake.bot],
      },
    );
    threadId = asked.id;
    const lastWords = answer.slice(-30);
    const finalAt = await within(
      seen(rig, threadId, (c) => c.endsWith(lastWords)),
      10_000,
      'latency round',
    );
    finals.push(finalAt - closedAt);
  }
  const p95First = percentile(firstWords, 95);
  const p95Final = percentile(finals, 95);
  return [
    {
      area: AREA,
      metric: `first words visible after the first chunk, p95 (${rounds} answers)`,
      value: ms(p95First),
      target: '<= 250 ms',
      ok: p95First <= 250,
    },
    {
      area: AREA,
      metric: `final text after the stream closed, p95 (${rounds} answers)`,
      value: ms(p95Final),
      target: '<= 300 ms',
      ok: p95Final <= 300,
    },
  ];
}

/** How many edits one 2,000-character answer streamed over ~4 s costs. */
async function editsPerAnswer(rig: EngineRig): Promise<BenchRow> {
  const answer = paragraphs('e', 1990).slice(0, 1990);
  const pieces = chunks(answer, 20);
  rig.answerFor = () => ({ pieces, before: (i) => (i > 0 ? sleep(40) : undefined) });
  const asked = rig.fake.userMessage(
    rig.fake.textChannel.id,
    user('200000000000000002', 'e'),
    `<@${rig.fake.bot.id}> long`,
    {
      mentions: [rig.fake.bot],
    },
  );
  await within(
    seen(rig, asked.id, (c) => c === answer),
    20_000,
    'edits per answer',
  );
  const messages = rig.fake.botMessages(asked.id);
  const edits = messages.reduce((sum, m) => sum + m.history.length - 1, 0);
  return {
    area: AREA,
    metric: `edits per 2,000-character answer (${pieces.length} chunks over ~4 s, ${messages.length} message)`,
    value: `${edits} edits`,
    target: '',
  };
}

type Limits = 'every 4th edit' | 'discord';

/**
 * 100 questions at once in one channel: every 4th edit refused with a 429 (today's row), or
 * the fake enforcing Discord's own limits (50/s global, 5 per 5 s per channel for posts, edits
 * and typing), with the bot paced by its rate budget (`replicas` label the run).
 */
async function burst(
  rig: EngineRig,
  threads: number,
  limits: Limits = 'every 4th edit',
  replicas = '',
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
      rig.fake.textChannel.id,
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
    results = await within(Promise.all(done), 45_000, 'burst');
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
    const where = `${threads} concurrent threads, one channel, Discord's limits enforced${replicas}`;
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
        target: '<= 2000 ms',
        ok: p95Chunk <= 2000,
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

export async function run(): Promise<BenchRow[]> {
  const rig = await startEngineRig({ minUpdateMs: 1000 });
  const rows: BenchRow[] = [];
  const stage = async (name: string, work: () => Promise<BenchRow[]>) => {
    try {
      rows.push(...(await work()));
    } catch (error) {
      rows.push({
        area: AREA,
        metric: name,
        value: (error as Error).message,
        target: 'completes',
        ok: false,
      });
    }
  };
  try {
    await stage('first words / final text', () => latencies(rig, 20));
    await stage('edits per answer', async () => [await editsPerAnswer(rig)]);
    await stage('100 concurrent threads', () => burst(rig, 100));
  } finally {
    await rig.close();
  }
  await stage("100 threads, Discord's limits, one process", async () => {
    const one = await startEngineRig({ minUpdateMs: 1000, sharedBudget: true });
    try {
      return await burst(one, 100, 'discord', ', one process');
    } finally {
      await one.close();
    }
  });
  await stage("100 threads, Discord's limits, two replicas on one Redis", () => twoReplicas());
  return rows;
}

/** The same 100 questions seen by two bot processes sharing one Redis (state and budget). */
async function twoReplicas(): Promise<BenchRow[]> {
  if (!hasRedisServer) {
    const metric = "100 concurrent threads, Discord's limits, two processes";
    return [{ area: AREA, metric, value: 'skipped: no redis-server', target: '' }];
  }
  const redis = await startRedisServer();
  const keyPrefix = 'bench-discord';
  const first = await startEngineRig({
    minUpdateMs: 1000,
    sharedBudget: true,
    state: await openState(redis.url, { keyPrefix }),
  });
  const second = await startReplicaProcess({
    REDIS_URL: redis.url,
    KEY_PREFIX: keyPrefix,
    SERVICE_URL: first.service.url,
    SERVICE_KEY: API_KEY,
    DISCORD_TOKEN: TOKEN,
    DISCORD_API_URL: first.fake.apiUrl,
  });
  try {
    // Both processes see every message; the dedup claim in Redis decides which one answers.
    let calls = 0;
    first.adapter.discord.rest.on(RESTEvents.Response, () => (calls += 1));
    const rows = await burst(first, 100, 'discord', ', two processes on one Redis');
    const theirs = await second.stop();
    rows[0]!.value += `; REST calls by process ${calls}/${theirs}`;
    return rows;
  } finally {
    await second.stop();
    await first.close();
    await redis.stop();
  }
}
