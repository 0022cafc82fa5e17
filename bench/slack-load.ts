// The load rows of `npm run bench` (issue 21): 200 questions at once over 20 channels of ONE
// workspace, the fake enforcing Slack's documented tiers (per workspace, and per channel where
// Slack counts so) on Slack's real one-minute windows, in real time. What people see: how soon
// each thread shows a sign of work, how soon every answer is on screen in full, how many 429s.
import { SLACK_TIERS } from '../test/slack/fake-slack.js';
import { mention } from '../test/slack/harness.js';
import { answersPerMinute, loadFigures } from '../test/slack/load-figures.js';
import { piecesOf, tooManyRequestsRow } from './slack-script.js';
import { startBench } from './slack.js';
import { percentile, type BenchRow } from './table.js';

const CHANNELS = 20;
const PER_CHANNEL = 10;
const ANSWER = Array(6)
  .fill('The refund policy covers every order placed in the last thirty days.')
  .join(' ');

export async function loadRows(): Promise<BenchRow[]> {
  const bench = await startBench({ ...SLACK_TIERS });
  const n = CHANNELS * PER_CHANNEL;
  for (let ch = 0; ch < CHANNELS; ch++) {
    const chatbot = bench.chatbots[ch % bench.chatbots.length]!;
    await bench.harness.state.bindings.set(`slack:T0TEAM:CLOAD${ch}`, chatbot.uuid);
  }
  const events = Array.from({ length: n }, (_, i) => {
    const query = `load question ${i}`;
    // Each answer written in 12 pieces over about 2.2 s.
    bench.scripts.set(query, { pieces: piecesOf(ANSWER, 36), intervalMs: 200, timing: {} });
    return mention(query, { channel: `CLOAD${i % CHANNELS}` });
  });
  const askedAt = Date.now();
  // When each question was acknowledged: on a busy machine taking 200 in can take seconds.
  const ackedAt = await Promise.all(
    events.map((e) => bench.harness.event(e).then(() => Date.now())),
  );
  const ackedMs = Math.max(...ackedAt) - askedAt;
  await bench.harness.adapter.idle();
  const fake = bench.harness.fake;
  const figures = loadFigures(
    fake,
    events.map((e) => ({ channel: e.channel, thread: e.ts, askedAt })),
    ANSWER,
  );
  // The same, counted from each question's acknowledgement: the reply surface's share alone.
  const afterAck = loadFigures(
    fake,
    events.map((e, i) => ({ channel: e.channel, thread: e.ts, askedAt: ackedAt[i]! })),
    ANSWER,
  );
  const calls = fake.calls.length;
  const streams = fake.callsOf('chat.startStream').length;
  await bench.close();
  const last = Math.max(...figures.answeredMs);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const label = `${n} questions at once, ${CHANNELS} channels, one workspace, Slack's tiers`;
  return [
    tooManyRequestsRow(`${label}: 429s`, fake),
    {
      area: 'slack',
      metric: `${label}: answered whole, last one after`,
      value: `${figures.whole}/${n}, ${seconds(last)} (p50 ${seconds(percentile(figures.answeredMs, 50))}); all acknowledged after ${seconds(ackedMs)}; ${calls} calls, ${streams} streamed`,
      target: `${n}/${n} within 60 s`,
      ok: figures.whole === n && last <= 60_000,
    },
    {
      area: 'slack',
      metric: `${label}: counted from each acknowledgement, answered p50 / max; first sign of work p50 / p95`,
      value: `${seconds(percentile(afterAck.answeredMs, 50))} / ${seconds(Math.max(...afterAck.answeredMs))}; ${seconds(percentile(afterAck.firstSignMs, 50))} / ${seconds(percentile(afterAck.firstSignMs, 95))}`,
      target: '',
    },
    {
      area: 'slack',
      metric: `${label}: first sign of work p50 / p95 (max)`,
      value: `${seconds(percentile(figures.firstSignMs, 50))} / ${seconds(percentile(figures.firstSignMs, 95))} (${seconds(Math.max(...figures.firstSignMs))})`,
      target: '',
    },
    {
      area: 'slack',
      metric: `${label}: threads showing work before the answer is complete (status or hourglass before any text)`,
      value: `${figures.workBeforeAnswer}/${n} (${figures.workShownFirst}/${n})`,
      target: `${n}/${n}`,
      ok: figures.workBeforeAnswer === n,
    },
    {
      area: 'slack',
      metric: `${label}: answers per minute`,
      value: String(answersPerMinute(figures)),
      target: '',
    },
  ];
}
