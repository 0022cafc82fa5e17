// Discord rows of `npm run bench`, on the fake Discord (loopback) with the real discord.js
// client, engine, service client and local service. Pacing is the production default (one edit
// per second per message, widened by 429s). Today's burst row refuses every 4th edit; the rows
// beside it have the fake enforce Discord's own limits, with the bot paced by its rate budget,
// in one process, in two processes sharing one Redis, and in two processes each holding one of
// two gateway shards (bench/discord-shards.ts).
import { RESTEvents } from 'discord.js';
import { openState } from '../src/state/index.js';
import { user } from '../test/discord/fake/payloads.js';
import { startEngineRig, type AnswerScript, type EngineRig } from '../test/discord/engine-rig.js';
import { hasRedisServer, startRedisServer } from '../test/state/redis-server.js';
import { chunks, ms, paragraphs, seen, sleep, within } from './discord-measure.js';
import { burst } from './discord-burst.js';
import { startReplicaProcess } from './discord-process.js';
import { twoShards } from './discord-shards.js';
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
  await stage("200 threads, Discord's limits, two shards in two processes", () => twoShards(200));
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
  const second = await startReplicaProcess(first, redis.url, keyPrefix);
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
