// Native streaming under pressure: appends that fail on the way are retried, not abandoned;
// a burst of new answers beyond the startStream budget starts at once as posted messages.
import { afterEach, describe, expect, it } from 'vitest';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import { MAX_TRANSIENT_FAILURES } from '../../adapters/slack/messages.js';
import { Harness, mention } from './harness.js';
import { RecordingConversation, simpleAnswer, type Script } from './recording.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('Slack native streaming', () => {
  it('keeps streaming after an append that got no answer or a 5xx: the renderer retries', async () => {
    const errors: unknown[] = [];
    const script: Script = async (target) => {
      const message = await target.openMessage('A');
      h!.fake.failNext('chat.appendStream', 1, 'network');
      errors.push(await rejection(message.update('A B')));
      h!.fake.failNext('chat.appendStream', 1, 500);
      errors.push(await rejection(message.update('A B C')));
      await message.update('A B C D');
      await message.finish({ text: 'A B C D.', sources: [] });
    };
    h = await Harness.start({ conversation: new RecordingConversation(script) });
    await h.event(mention('go'));
    await h.adapter.idle();
    expect(errors).toHaveLength(2);
    for (const error of errors) expect(error).toBeInstanceOf(SurfaceRateLimitError);
    const appends = h.fake.callsOf('chat.appendStream');
    expect(appends.map((c) => [c.status, c.args.markdown_text])).toEqual([
      [0, ' B'],
      [500, ' B C'],
      [200, ' B C D'],
    ]);
    // Still the one streamed message: no fallback to posting or editing.
    expect(h.fake.callsOf('chat.update')).toHaveLength(0);
    expect(h.fake.callsOf('chat.postMessage')).toHaveLength(0);
    const stop = h.fake.callsOf('chat.stopStream')[0]!;
    expect(h.fake.workspace.visibleText(String(stop.args.ts))).toBe('A B C D.');
  });

  it('finishes by editing when appends keep failing', async () => {
    const script: Script = async (target) => {
      const message = await target.openMessage('A');
      h!.fake.failNext('chat.appendStream', MAX_TRANSIENT_FAILURES, 500);
      let text = 'A';
      for (let i = 1; i < MAX_TRANSIENT_FAILURES; i++) {
        text += ` ${i}`;
        expect(await rejection(message.update(text))).toBeInstanceOf(SurfaceRateLimitError);
      }
      await message.update(`${text} last`);
      await message.finish({ text: `${text} last.`, sources: [] });
    };
    h = await Harness.start({ conversation: new RecordingConversation(script) });
    await h.event(mention('go'));
    await h.adapter.idle();
    expect(h.fake.callsOf('chat.appendStream')).toHaveLength(MAX_TRANSIENT_FAILURES);
    const ts = String((h.fake.callsOf('chat.startStream')[0]!.reply as { ts?: string }).ts);
    expect(h.fake.workspace.messages.get(ts)?.streaming).toBe(false);
    expect(h.fake.workspace.visibleText(ts)).toBe('A 1 2 last.');
  });

  it('starts answers beyond the burst of five streams at once, by posting and editing', async () => {
    const conversation = new RecordingConversation(simpleAnswer('Here is the answer.'));
    h = await Harness.start({ conversation });
    const events = Array.from({ length: 7 }, (_, i) => mention(`q${i}`, { channel: `CB${i}` }));
    await Promise.all(events.map((event) => h!.event(event)));
    await h.adapter.idle();
    expect(h.fake.callsOf('chat.startStream')).toHaveLength(5);
    const posted = h.fake.callsOf('chat.postMessage');
    expect(posted).toHaveLength(2);
    for (const post of posted) expect(post.args.thread_ts).toBeDefined();
    const ws = h.fake.workspace;
    for (const event of events) {
      const texts = ws.thread(event.channel, event.ts).map((m) => ws.visibleText(m.ts));
      expect(texts).toEqual(['Here is the answer.']);
    }
  });
});
