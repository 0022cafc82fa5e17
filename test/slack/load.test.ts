// Under load every thread shows work (issue 21): 80 questions at once over 8 channels of one
// workspace, the fake enforcing Slack's documented tiers per workspace and per channel
// (SLACK_TIERS), on fake time with Slack's real one-minute windows. Ten a channel, as in the
// 200-over-20 run of `npm run bench -- slack`: enough to spend chat.startStream's Tier 2 and the
// open-edit allowance, so all three ways of answering are taken (a fake clock's cost grows with
// the square of the timers pending, so the bench, not the suite, runs the 200). Every question is answered
// in full within 60 s, every thread shows work (a status, an hourglass, or first words) before
// its answer is complete, and the fake never answers 429.
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../../adapters/slack/pacing.js';
import { useFakeTime, type FakeTime } from '../fake-time.js';
import { startChain, type Chain } from './e2e-setup.js';
import { SLACK_TIERS, TEAM } from './fake-slack.js';
import { mention } from './harness.js';
import { loadFigures } from './load-figures.js';

let chain: Chain | undefined;
let time: FakeTime | undefined;
afterEach(async () => {
  await chain?.close();
  chain = undefined;
  time?.restore();
  time = undefined;
});

const CHANNELS = 8;
const PER_CHANNEL = 10;
const ANSWER = Array(6)
  .fill('The refund policy covers every order placed in the last thirty days.')
  .join(' ');

describe('Slack under load', () => {
  it('answers 80 questions at once over 8 channels within 60 s, each thread showing work first, no 429', async () => {
    // 50 ms of virtual time a step. Between steps the event loop turns until loopback I/O is at
    // rest (ioTurns), rather than pausing 2 ms of real time: all of this test's work is on the
    // loop (no worker, no file), and a status call's round trip then lands within the 20 s a
    // reply posted whole waits for it however busy the machine (on the real-time pause at
    // 200 ms a step, CI saw 3 of 80 posted before their status landed). 630 steps: 1.3 s less.
    time = useFakeTime(50, { ioTurns: true });
    // The harness is given no fake time: one settle below moves it for all 80 deliveries.
    chain = await startChain({
      fake: { ...SLACK_TIERS },
      rateLimit: [100, 1],
      // The chatbot writes each answer in 12 pieces over about 2.2 s.
      pace: (_piece, signal) => sleep(200, signal),
    });
    const c = chain;
    // Four chatbots, two channels each: a chatbot takes at most 100 questions a second.
    for (let i = 1; i < 4; i++) {
      const bot = await c.client.createChatbot({ name: `Bot ${i}`, rate_limit: [100, 1] });
      for (let ch = i; ch < CHANNELS; ch += 4)
        await c.harness.state.bindings.set(`slack:${TEAM}:CL${ch}`, bot.uuid);
    }
    const pieces = ANSWER.match(/.{1,36}/g)!;
    c.answerFor = () => ({ pieces });
    const events = Array.from({ length: CHANNELS * PER_CHANNEL }, (_, i) =>
      mention(`question ${i}`, { channel: `CL${i % CHANNELS}` }),
    );
    const askedAt = Date.now();
    const acks = await time.settle(Promise.all(events.map((e) => c.harness.event(e))));
    expect(acks.every((a) => a.status === 200)).toBe(true);
    await time.settle(c.harness.adapter.idle());

    const figures = loadFigures(
      c.harness.fake,
      events.map((e) => ({ channel: e.channel, thread: e.ts, askedAt })),
      ANSWER,
    );
    expect(c.harness.fake.tooManyRequests).toBe(0);
    expect(figures.whole).toBe(events.length);
    expect(figures.answeredMs.length).toBe(events.length);
    expect(Math.max(...figures.answeredMs)).toBeLessThanOrEqual(60_000);
    // Every thread shows work before its answer is complete: its status or hourglass, or (the
    // few streamed or edited answers) its first words; the status or hourglass comes first in
    // nearly all (those few may show their first words a moment before), within seconds: ten
    // threads a channel at Slack's one status a second per channel.
    expect(figures.workBeforeAnswer).toBe(events.length);
    expect(figures.workShownFirst).toBeGreaterThanOrEqual(events.length * 0.9);
    expect(Math.max(...figures.firstSignMs)).toBeLessThanOrEqual(15_000);
    // Nothing left behind: no hourglass still on, every status set was cleared.
    expect(c.harness.fake.workspace.reactions.size).toBe(0);
    const statuses = c.harness.fake.workspace.statuses;
    const lastStatus = new Map(statuses.map((s) => [`${s.channel}:${s.threadTs}`, s.status]));
    expect([...lastStatus.values()].every((status) => status === '')).toBe(true);
    // The mix the tiers allowed: a few streams and edited posts, the rest posted whole.
    const streamed = c.harness.fake.callsOf('chat.startStream').length;
    const edited = new Set(c.harness.fake.callsOf('chat.update').map((u) => String(u.args.ts)));
    const posted = c.harness.fake.callsOf('chat.postMessage').length;
    expect(streamed).toBeGreaterThan(0);
    expect(streamed).toBeLessThanOrEqual(20);
    expect(edited.size).toBeGreaterThan(0);
    // Posted whole: every answer neither streamed nor edited.
    expect(posted - edited.size).toBeGreaterThan(events.length / 2);
  }, 180_000);
});
