// Discord rows of `npm run bench`, on the fake Discord (loopback) with the real discord.js
// client, engine, service client and local service. Pacing is the production default (one edit
// per second per message, widened by 429s); discord.js keeps its global 50 requests/s.
import { percentile, type BenchRow } from './table.js';
import { startEngineRig, type AnswerScript, type EngineRig } from '../test/discord/engine-rig.js';
import type { FakeMessage } from '../test/discord/fake/payloads.js';
import { user } from '../test/discord/fake/payloads.js';

const AREA = 'discord';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A wait that gives up (a failed row, not a hung bench) when the answer never comes. */
function within<T>(promise: Promise<T>, limitMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${limitMs} ms`)), limitMs);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
const ms = (value: number) => `${value.toFixed(0)} ms`;

/**
 * Resolves with the time the fake saw a bot message for this question (in its thread, or a
 * reply to it when no thread could be made) satisfying the predicate.
 */
function seen(
  rig: EngineRig,
  askedId: string,
  predicate: (content: string) => boolean,
): Promise<number> {
  const matches = (m: FakeMessage) =>
    (m.channel_id === askedId || m.message_reference?.message_id === askedId) &&
    predicate(m.content);
  return new Promise((resolve) => {
    const listener = (m: FakeMessage) => {
      if (!matches(m)) return;
      rig.fake.off('message', listener);
      rig.fake.off('edit', listener);
      resolve(performance.now());
    };
    rig.fake.on('message', listener);
    rig.fake.on('edit', listener);
  });
}

function answerMessages(rig: EngineRig, askedId: string): FakeMessage[] {
  return rig.fake
    .botMessages()
    .filter((m) => m.channel_id === askedId || m.message_reference?.message_id === askedId);
}

function paragraphs(prefix: string, length: number): string {
  const words: string[] = [];
  let size = 0;
  for (let i = 1; size < length; i++) {
    const word = i % 40 === 0 ? `${prefix}${i}.\n\n` : `${prefix}${i} `;
    words.push(word);
    size += word.length;
  }
  return words.join('').trim();
}

function chunks(text: string, size: number): string[] {
  return text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
}

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

/** 100 questions at once in one channel, every 4th edit refused with a 429. */
async function burst(rig: EngineRig, threads: number): Promise<BenchRow[]> {
  const answers = new Map<string, string>();
  const closed = new Map<string, number>();
  rig.answerFor = (query) => {
    const text = answers.get(query);
    if (text === undefined) return undefined;
    return {
      pieces: chunks(text, 50),
      before: (i) => (i > 0 ? sleep(40) : undefined),
      onEnd: () => {
        closed.set(query, performance.now());
      },
    };
  };
  let patches = 0;
  let refused = 0;
  rig.fake.rateLimiter = (request) => {
    if (request.method !== 'PATCH') return undefined;
    patches += 1;
    if (patches % 4 !== 0) return undefined;
    refused += 1;
    return 250;
  };
  const started = performance.now();
  const done: Promise<{ lag: number; ok: boolean }>[] = [];
  const askedIds: string[] = [];
  for (let i = 0; i < threads; i++) {
    const query = `burst question ${i}`;
    const text = `Answer ${i}: ${paragraphs(`t${i}x`, 1200)}`;
    answers.set(query, text);
    const author = user(String(300000000000000000n + BigInt(i)), `user${i}`);
    const asked = rig.fake.userMessage(
      rig.fake.textChannel.id,
      author,
      `<@${rig.fake.bot.id}> ${query}`,
      {
        mentions: [rig.fake.bot],
      },
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
  const results = await within(Promise.all(done), 45_000, 'burst');
  const wall = performance.now() - started;
  rig.fake.rateLimiter = undefined;
  const lost = results.filter((r) => !r.ok).length;
  const inThreads = askedIds.filter((id) => rig.fake.channels.has(id)).length;
  const p95 = percentile(
    results.map((r) => r.lag),
    95,
  );
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
    return rows;
  } finally {
    await rig.close();
  }
}
