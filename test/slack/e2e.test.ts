// End to end: Slack events → Bolt → the engine → the local service, and back into Slack threads.
import { afterEach, describe, expect, it } from 'vitest';
import { BOT_USER } from './fake-slack.js';
import { startChain, storedAnswers, type Chain, type ChainOptions } from './e2e-setup.js';
import { mention, message, nextTs } from './harness.js';
import { useFakeTime, type FakeTime } from '../fake-time.js';

let chain: Chain | undefined;
let time: FakeTime | undefined;
afterEach(async () => {
  await chain?.close();
  chain = undefined;
  time?.restore();
  time = undefined;
});

/** The chain on fake time: Slack's one message a second per channel costs no wall-clock time. */
async function begin(options: ChainOptions = {}): Promise<Chain> {
  time = useFakeTime();
  chain = await startChain({ ...options, time });
  return chain;
}

/** Visible texts of the bot's messages in a thread, in order. */
function threadTexts(c: Chain, channel: string, thread: string): string[] {
  const ws = c.harness.fake.workspace;
  return ws.thread(channel, thread).map((m) => ws.visibleText(m.ts));
}

const PARAGRAPHS = [
  'Refunds are issued within 5 days.',
  '\n\n',
  'Contact **support** for ',
  'anything else.',
];

describe('Slack end to end', () => {
  it('answers a mention in its thread with a streamed answer equal to the stored message', async () => {
    const c = await begin();
    c.scripted.set('how do refunds work?', { pieces: PARAGRAPHS });
    const event = mention('how do refunds work?');
    await c.harness.event(event);
    const stop = await c.harness.fake.waitFor('chat.stopStream');
    await c.harness.idle();
    const stored = await storedAnswers(c, 'C1', event.ts);
    expect(stored).toEqual([PARAGRAPHS.join('')]);
    expect(c.harness.fake.workspace.visibleText(String(stop.args.ts))).toBe(stored[0]);
    expect(c.harness.fake.callsOf('chat.startStream')[0]!.args.thread_ts).toBe(event.ts);
    expect(c.harness.fake.callsOf('chat.update')).toHaveLength(0);
  });

  it('keeps one session for a follow-up without a mention, and opens one per DM thread', async () => {
    const c = await begin();
    c.scripted.set('first', { pieces: ['One.'] });
    c.scripted.set('second', { pieces: ['Two.'] });
    const root = mention('first');
    await c.harness.event(root);
    await c.harness.fake.waitFor('chat.stopStream');
    await c.harness.idle();
    await c.harness.event(message('second', { thread_ts: root.ts }));
    await c.harness.idle();
    expect(await storedAnswers(c, 'C1', root.ts)).toEqual(['One.', 'Two.']);
    expect(threadTexts(c, 'C1', root.ts)).toEqual(['One.', 'Two.']);

    const dm = message('first', { channel: 'D7', channel_type: 'im' });
    await c.harness.event(dm);
    await c.harness.idle();
    expect(await storedAnswers(c, 'D7', dm.ts)).toEqual(['One.']);
    expect(threadTexts(c, 'D7', dm.ts)).toEqual(['One.']);
  });

  it('gives one answer to three deliveries of one event', async () => {
    const c = await begin();
    c.scripted.set('once', { pieces: ['Only once.'] });
    const event = mention('once');
    const first = await c.harness.event(event);
    await Promise.all([
      c.harness.event(event, { eventId: first.eventId, retryNum: 1 }),
      c.harness.event(event, { eventId: first.eventId, retryNum: 2 }),
    ]);
    await c.harness.fake.waitFor('chat.stopStream');
    await c.harness.idle();
    expect(await storedAnswers(c, 'C1', event.ts)).toEqual(['Only once.']);
    expect(threadTexts(c, 'C1', event.ts)).toEqual(['Only once.']);
  });

  it('continues an answer whose stream Slack expired, losing nothing', async () => {
    // Piece 3 waits until the stream has been expired on Slack's side.
    let expired!: () => void;
    const gate = new Promise<void>((resolve) => (expired = resolve));
    // Piece 4 waits until the renderer tried to append piece 3 to the expired stream.
    const c: Chain = await begin({
      pace: async (index) => {
        if (index === 2) await gate;
        if (index === 3) await c.harness.fake.waitFor('chat.appendStream');
      },
    });
    const pieces = ['Alpha beta. ', 'Gamma delta. ', 'Epsilon zeta. ', 'Eta theta.'];
    c.scripted.set('slow', { pieces });
    const event = mention('slow');
    await c.harness.event(event);
    const start = await c.harness.fake.waitFor('chat.startStream');
    c.harness.fake.workspace.expire(String((start.reply as unknown as { ts: string }).ts));
    expired();
    await c.harness.idle();
    // Slack refused the append; the same message was then edited to the end.
    expect(c.harness.fake.callsOf('chat.appendStream')[0]?.reply).toEqual({
      ok: false,
      error: 'message_not_in_streaming_state',
    });
    expect(c.harness.fake.callsOf('chat.update').length).toBeGreaterThan(0);
    expect(threadTexts(c, 'C1', event.ts).join('')).toBe(pieces.join(''));
    expect([...c.harness.fake.workspace.messages.values()].some((m) => m.streaming)).toBe(false);
  });

  it('falls back to post and update where streaming is refused', async () => {
    const c = await begin({ fake: { behaviour: { refuseStreaming: 'not_allowed' } } });
    c.scripted.set('fallback', { pieces: PARAGRAPHS });
    const event = mention('fallback');
    await c.harness.event(event);
    await c.harness.idle();
    expect(c.harness.fake.callsOf('chat.postMessage')).toHaveLength(1);
    expect(threadTexts(c, 'C1', event.ts)).toEqual([PARAGRAPHS.join('')]);
  });

  it('delivers a 20,000-character answer whole across several messages', async () => {
    const c = await begin();
    const sentence = (i: number) => `Sentence number ${i} explains one more detail of the policy. `;
    const pieces = Array.from(
      { length: 345 },
      (_, i) => sentence(i) + (i % 10 === 9 ? '\n\n' : ''),
    );
    const full = pieces.join('');
    expect(full.length).toBeGreaterThan(20_000);
    c.scripted.set('long', { pieces });
    const event = mention('long');
    await c.harness.event(event);
    await c.harness.idle();
    const texts = threadTexts(c, 'C1', event.ts);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(9000);
    const words = (s: string) => s.split(/\s+/).filter(Boolean);
    expect(words(texts.join(' '))).toEqual(words(full));
  });

  it('renders citations as a numbered sources block', async () => {
    const c = await begin({ showCitations: true });
    const source = await c.client.addQaSource(c.chatbotUuid, {
      question: 'Refunds?',
      answer: 'Within 5 days.',
    });
    c.scripted.set('cite me', {
      pieces: ['Refunds take 5 days [1.1].'],
      citations: {
        '1.1': {
          data_source_uuid: source.uuid,
          title: 'Refunds & <Returns>',
          text: 'Within 5 days.',
          file_name: '',
          type: 'qa',
        },
      },
    });
    const event = mention('cite me');
    await c.harness.event(event);
    await c.harness.idle();
    const finals = [...c.harness.fake.workspace.thread('C1', event.ts)];
    const blocks = finals.flatMap((m) => m.blocks);
    const sources = blocks.find((b) => b.type === 'section') as
      { text: { text: string } } | undefined;
    expect(sources?.text.text).toMatch(/^\*Sources\*\n1\. .*Refunds &amp; &lt;Returns&gt;/);
    expect(threadTexts(c, 'C1', event.ts).join('')).toContain('Refunds take 5 days');
    expect(threadTexts(c, 'C1', event.ts).join('')).not.toContain('[1.1]');
  });

  it('ends with a visible notice when the service fails mid-stream', async () => {
    const c = await begin();
    c.scripted.set('break', {
      pieces: ['Start of the answer. ', 'More. ', 'Even more. ', 'The end.'],
    });
    c.service.setFaults({ cutAfterPieces: 2 });
    const event = mention('break');
    await c.harness.event(event);
    await c.harness.idle();
    const messages = c.harness.fake.workspace.thread('C1', event.ts);
    expect(messages.every((m) => !m.streaming)).toBe(true);
    const context = messages.flatMap((m) => m.blocks).find((b) => b.type === 'context');
    expect(JSON.stringify(context)).toContain(':warning:');
    expect(threadTexts(c, 'C1', event.ts).join('')).toContain('Start of the answer.');
    expect(BOT_USER).toBe('UBOT');
  });

  it('uses a fresh thread key per top-level DM', async () => {
    const c = await begin();
    c.scripted.set('dm one', { pieces: ['A.'] });
    const a = message('dm one', { channel: 'D9', channel_type: 'im', ts: nextTs() });
    const b = message('dm one', { channel: 'D9', channel_type: 'im', ts: nextTs() });
    await c.harness.event(a);
    await c.harness.event(b);
    await c.harness.idle();
    expect(await storedAnswers(c, 'D9', a.ts)).toEqual(['A.']);
    expect(await storedAnswers(c, 'D9', b.ts)).toEqual(['A.']);
  });
});
