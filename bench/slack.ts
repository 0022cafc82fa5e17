// Slack rows of `npm run bench`, on the fake Web API with the real adapter, engine, service
// client and local service. Latency rows: answers streamed over ~4 s, each in its own workspace
// (so Slack's per-workspace tiers do not queue one sample behind another). Load row: 200
// threads at once in ONE workspace, the fake enforcing the tiers per method, with time
// compressed 30× (the per-minute budgets count over 2 s) so the run stays short. Burst row: 20
// new answers at once in one workspace under the real tiers (first words must not wait). The
// rows of 200 questions over 20 channels on Slack's real windows are slack-load.ts's.
import { createConversation } from '../src/bridge/index.js';
import { createServiceClient } from '../src/service/index.js';
import { openState } from '../src/state/index.js';
import { METHOD_LIMITS } from '../adapters/slack/pacing.js';
import { SLACK_TIERS, type FakeSlackOptions } from '../test/slack/fake-slack.js';
import { Harness, mention } from '../test/slack/harness.js';
import {
  answerText,
  answeredWhole,
  piecesOf,
  scriptedService,
  tooManyRequestsRow,
  type Script,
} from './slack-script.js';
import { percentile, type BenchRow } from './table.js';

export async function startBench(fake: FakeSlackOptions, windowMs?: number) {
  const { service, scripts } = await scriptedService();
  const client = createServiceClient({ baseUrl: service.url, apiKey: 'bench', connections: 256 });
  const state = await openState('memory://', { maxConcurrent: 512 });
  const chatbots = await Promise.all(
    [1, 2, 3, 4].map((i) => client.createChatbot({ name: `Bench ${i}`, rate_limit: [100, 1] })),
  );
  const conversation = createConversation({
    client,
    state,
    defaultChatbot: chatbots[0]!.uuid,
    maxConcurrentStreams: 512,
  });
  const harness = await Harness.start({
    conversation,
    client,
    state,
    fake,
    ...(windowMs ? { methodLimits: { ...METHOD_LIMITS }, methodWindowMs: windowMs } : {}),
  });
  return {
    harness,
    scripts,
    chatbots,
    async close() {
      await harness.close();
      await client.close();
      await service.close();
    },
  };
}

const forChannel = (channel: string) => (call: { args: Record<string, unknown> }) =>
  call.args.channel === channel || call.args.channel_id === channel;
const VISIBLE = new Set(['chat.startStream', 'chat.postMessage']);

export async function latencyRows(label: string, paragraphs: boolean): Promise<BenchRow[]> {
  const bench = await startBench({});
  const n = 20;
  const text = answerText(paragraphs);
  // Warm-up (JIT, connection pools): one answer, not measured.
  bench.scripts.set('warm up', { pieces: piecesOf(text, 200), intervalMs: 10, timing: {} });
  await bench.harness.event(mention('warm up', { channel: 'CWARM', team: 'TWARM' }), {
    team: 'TWARM',
  });
  await bench.harness.adapter.idle();
  const runs = Array.from({ length: n }, (_, i) => {
    const query = `${label} question ${i}`;
    const script: Script = { pieces: piecesOf(text, 20), intervalMs: 40, timing: {} };
    bench.scripts.set(query, script);
    return { query, script, channel: `CLAT${i}`, team: `TLAT${i}` };
  });
  await Promise.all(
    runs.map((r) =>
      bench.harness.event(mention(r.query, { channel: r.channel, team: r.team }), { team: r.team }),
    ),
  );
  await bench.harness.adapter.idle();
  const first: number[] = [];
  const final: number[] = [];
  const calls: number[] = [];
  let whole = 0;
  for (const r of runs) {
    const mine = bench.harness.fake.calls.filter(forChannel(r.channel));
    const opened = mine.find((c) => VISIBLE.has(c.method) && c.reply?.ok);
    const last = mine
      .filter((c) => c.reply?.ok && c.method !== 'assistant.threads.setStatus')
      .at(-1);
    if (opened && r.script.timing.first) first.push(opened.at - r.script.timing.first);
    if (last && r.script.timing.end) final.push(Math.max(0, last.at - r.script.timing.end));
    calls.push(mine.length);
    const ws = bench.harness.fake.workspace;
    const texts = [...ws.messages.values()]
      .filter((m) => m.channel === r.channel)
      .map((m) => ws.visibleText(m.ts));
    if (texts.join('') === text) whole += 1;
  }
  await bench.close();
  const p95First = percentile(first, 95);
  const p95Final = percentile(final, 95);
  return [
    {
      area: 'slack',
      metric: `${label}: first words after first chunk, p95 (p50) of ${n}`,
      value: `${p95First} ms (${percentile(first, 50)} ms)`,
      target: '<= 250 ms',
      ok: p95First <= 250,
    },
    {
      area: 'slack',
      metric: `${label}: final text after stream close, p95 (p50)`,
      value: `${p95Final} ms (${percentile(final, 50)} ms)`,
      target: '<= 300 ms',
      ok: p95Final <= 300,
    },
    {
      area: 'slack',
      metric: `${label}: Web API calls per answer (median)`,
      value: `${percentile(calls, 50)} (max ${Math.max(...calls)})`,
      target: '',
    },
    {
      area: 'slack',
      metric: `${label}: answers arriving whole`,
      value: `${whole}/${n}`,
      target: `${n}/${n}`,
      ok: whole === n,
    },
  ];
}

/**
 * A burst: 20 new answers at once in ONE workspace, Slack's real per-minute tiers paced by the
 * adapter and enforced by the fake. chat.startStream allows 5 at once; the rest must not wait
 * for a stream slot before showing their first words.
 */
export async function burstRows(): Promise<BenchRow[]> {
  const bench = await startBench({ ...SLACK_TIERS, windowMs: 60_000 });
  const n = 20;
  const text = answerText(true).slice(0, 600);
  const runs = Array.from({ length: n }, (_, i) => {
    const query = `burst question ${i}`;
    const script: Script = { pieces: piecesOf(text, 30), intervalMs: 40, timing: {} };
    bench.scripts.set(query, script);
    return { query, script, channel: `CBURST${i}` };
  });
  await Promise.all(runs.map((r) => bench.harness.event(mention(r.query, { channel: r.channel }))));
  await bench.harness.adapter.idle();
  const first: number[] = [];
  for (const r of runs) {
    const opened = bench.harness.fake.calls.find(
      (c) => forChannel(r.channel)(c) && VISIBLE.has(c.method) && c.reply?.ok,
    );
    if (opened && r.script.timing.first) first.push(opened.at - r.script.timing.first);
  }
  const streams = bench.harness.fake.callsOf('chat.startStream').length;
  const tooMany = bench.harness.fake.tooManyRequests;
  await bench.close();
  const p95 = percentile(first, 95);
  return [
    {
      area: 'slack',
      metric: `${n} new answers at once, one workspace, real tiers: first words p95 (p50)`,
      value: `${p95} ms (${percentile(first, 50)} ms); ${streams} streamed, ${n - streams} posted; ${tooMany} 429s`,
      target: '<= 250 ms, 0 429s',
      ok: p95 <= 250 && first.length === n && tooMany === 0,
    },
  ];
}

async function loadRows(): Promise<BenchRow[]> {
  const windowMs = 2000;
  const bench = await startBench({ ...SLACK_TIERS, windowMs }, windowMs);
  const n = 200;
  const text = answerText(true).slice(0, 400);
  const started = Date.now();
  const runs = Array.from({ length: n }, (_, i) => {
    const query = `load question ${i}`;
    bench.scripts.set(query, { pieces: piecesOf(text, 40), intervalMs: 100, timing: {} });
    return { query, channel: `CLOAD${i}` };
  });
  for (const [i, r] of runs.entries()) {
    await bench.harness.state.bindings.set(
      `slack:T0TEAM:${r.channel}`,
      bench.chatbots[i % 4]!.uuid,
    );
  }
  await Promise.all(runs.map((r) => bench.harness.event(mention(r.query, { channel: r.channel }))));
  await bench.harness.adapter.idle();
  const elapsed = Date.now() - started;
  const complete = runs.filter((r) => answeredWhole(bench.harness.fake, r.channel, text)).length;
  const calls = bench.harness.fake.calls.length;
  await bench.close();
  return [
    tooManyRequestsRow(
      `${n} concurrent threads, one workspace, tiers enforced (time ×30): 429s`,
      bench.harness.fake,
    ),
    {
      area: 'slack',
      metric: `${n} concurrent threads: answers complete and whole`,
      value: `${complete}/${n} in ${(elapsed / 1000).toFixed(1)} s, ${calls} calls`,
      target: `${n}/${n}`,
      ok: complete === n,
    },
  ];
}

export async function run(): Promise<BenchRow[]> {
  return [
    ...(await latencyRows('2,000-char multi-paragraph answer over 4 s', true)),
    ...(await latencyRows('2,000-char single paragraph over 4 s', false)),
    ...(await burstRows()),
    ...(await loadRows()),
    ...(await (await import('./slack-load.js')).loadRows()),
    ...(await (await import('./slack-replicas.js')).replicaRows()),
    ...(await (await import('./slack-oauth.js')).oauthRows()),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { formatTable } = await import('./table.js');
  console.log(formatTable(await run()));
}
