// The Slack reply surface under the conditions Slack creates: streaming refused, streams that
// expire, rewritten text, 429s, a refused thread status; and how sources and notices look.
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplyMessage, ReplyTarget } from '../../src/bridge/types.js';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import type { FakeSlackOptions } from './fake-slack.js';
import { Harness, mention } from './harness.js';
import { RecordingConversation, simpleAnswer, type Script } from './recording.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** Runs one answer with `script`, resolving with the target once the script is done. */
async function answerWith(script: Script, fake?: FakeSlackOptions, now?: () => number) {
  const conversation = new RecordingConversation(script);
  h = await Harness.start({ conversation, ...(fake ? { fake } : {}), ...(now ? { now } : {}) });
  return { conversation, harness: h };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('Slack reply surface', () => {
  it('falls back to post + update at most once a second when streaming is refused, and remembers', async () => {
    const clock = manualClock();
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const script: Script = async (target) => {
      const message = await target.openMessage('One');
      const early = await rejection(message.update('One two'));
      expect(early).toBeInstanceOf(SurfaceRateLimitError);
      expect((early as SurfaceRateLimitError).retryAfterMs).toBe(1000);
      clock.advance(1000);
      await message.update('One two three');
      clock.advance(400);
      expect(await rejection(message.update('One two three four'))).toBeInstanceOf(
        SurfaceRateLimitError,
      );
      await message.finish({ text: 'One two three four five.', sources: [] });
      done();
    };
    const { harness, conversation } = await answerWith(
      script,
      { behaviour: { refuseStreaming: 'unknown_method' } },
      clock.now,
    );
    await harness.event(mention('question'));
    await finished;
    const post = harness.fake.callsOf('chat.postMessage')[0]!;
    expect(post.args).toMatchObject({
      markdown_text: 'One',
      unfurl_links: 'false',
      thread_ts: conversation.handled[0]!.message.thread,
    });
    const updates = harness.fake.callsOf('chat.update');
    expect(updates.map((c) => c.args.markdown_text ?? null)).toEqual(['One two three', null]);
    expect(
      harness.fake.workspace.visibleText(
        String(post.reply && 'ts' in post.reply ? post.reply.ts : ''),
      ),
    ).toBe('One two three four five.');
    expect(conversation.handled[0]!.target.limits.minUpdateMs).toBe(250);

    // The refusal was permanent: the next answer does not try streaming again.
    conversation.script = simpleAnswer('Second answer.');
    await harness.event(mention('again'));
    await harness.adapter.idle();
    expect(harness.fake.callsOf('chat.startStream')).toHaveLength(1);
    expect(harness.fake.callsOf('chat.postMessage')).toHaveLength(2);
    expect(conversation.handled[1]!.target.limits.minUpdateMs).toBe(1000);
  });

  it('continues by editing the same message when Slack ends the stream early', async () => {
    let ts = '';
    const script: Script = async (target) => {
      const message = await target.openMessage('Part one. ');
      ts = String((h!.fake.callsOf('chat.startStream')[0]!.reply as unknown as { ts: string }).ts);
      await message.update('Part one. Part two. ');
      h!.fake.workspace.expire(ts);
      await message.update('Part one. Part two. Part three.');
      await message.finish({ text: 'Part one. Part two. Part three. The end.', sources: [] });
    };
    const { harness } = await answerWith(script);
    await harness.event(mention('long one'));
    await harness.adapter.idle();
    const appendErrors = harness.fake.callsOf('chat.appendStream').map((c) => c.reply);
    expect(appendErrors.at(-1)).toEqual({ ok: false, error: 'message_not_in_streaming_state' });
    expect(harness.fake.callsOf('chat.stopStream')).toHaveLength(0);
    expect(harness.fake.callsOf('chat.update').map((c) => c.args.ts)).toEqual([ts, ts]);
    expect(harness.fake.workspace.visibleText(ts)).toBe('Part one. Part two. Part three. The end.');
    expect([...harness.fake.workspace.messages.values()].filter((m) => m.streaming)).toEqual([]);
  });

  it('stops the stream and edits when earlier text was rewritten', async () => {
    const script: Script = async (target) => {
      const message = await target.openMessage('Refunds take 5 days [3.4]');
      await message.update('Refunds take 5 days [1] and');
      await message.finish({ text: 'Refunds take 5 days [1] and are free.', sources: [] });
    };
    const { harness } = await answerWith(script);
    await harness.event(mention('refunds?'));
    await harness.adapter.idle();
    const stop = harness.fake.callsOf('chat.stopStream')[0]!;
    expect(stop.args.markdown_text).toBeUndefined();
    expect(harness.fake.workspace.visibleText(String(stop.args.ts))).toBe(
      'Refunds take 5 days [1] and are free.',
    );
  });

  it('keeps streaming through the closers a renderer adds to half-written markdown', async () => {
    const script: Script = async (target) => {
      const message = await target.openMessage('Use **bold**');
      await message.update('Use **bold text**');
      await message.update('Use **bold text** and\n```js\nconst a\n```');
      await message.update('Use **bold text** and\n```js\nconst a = 1;\n```');
      await message.finish({
        text: 'Use **bold text** and\n```js\nconst a = 1;\n```\nDone.',
        sources: [],
      });
    };
    const { harness } = await answerWith(script);
    await harness.event(mention('markdown'));
    await harness.adapter.idle();
    expect(harness.fake.callsOf('chat.startStream')[0]!.args.markdown_text).toBe('Use **bold');
    expect(harness.fake.callsOf('chat.appendStream').map((c) => c.args.markdown_text)).toEqual([
      ' text',
      '** and\n```js\nconst a',
      ' = 1;',
    ]);
    expect(harness.fake.callsOf('chat.update')).toHaveLength(0);
    const stop = harness.fake.callsOf('chat.stopStream')[0]!;
    expect(stop.args.markdown_text).toBe('\n```\nDone.');
    expect(harness.fake.workspace.visibleText(String(stop.args.ts))).toBe(
      'Use **bold text** and\n```js\nconst a = 1;\n```\nDone.',
    );
  });

  it('turns a 429 into SurfaceRateLimitError and sends nothing of that method before Retry-After', async () => {
    const clock = manualClock();
    const errors: unknown[] = [];
    const script: Script = async (target) => {
      const message = await target.openMessage('A');
      h!.fake.rateLimitNext('chat.appendStream', 1, 2);
      errors.push(await rejection(message.update('A B')));
      errors.push(await rejection(message.update('A B C')));
      clock.advance(2000);
      await message.update('A B C D');
      await message.finish({ text: 'A B C D', sources: [] });
    };
    const { harness } = await answerWith(script, undefined, clock.now);
    await harness.event(mention('go'));
    await harness.adapter.idle();
    expect(errors.map((e) => (e as SurfaceRateLimitError).retryAfterMs)).toEqual([2000, 2000]);
    const appends = harness.fake.callsOf('chat.appendStream');
    expect(appends.map((c) => [c.status, c.args.markdown_text])).toEqual([
      [429, ' B'],
      [200, ' B C D'],
    ]);
    const ts = String(appends[1]!.args.ts);
    expect(harness.fake.workspace.visibleText(ts)).toBe('A B C D');
  });

  it('uses a reaction where the thread status is refused, and removes it at the end', async () => {
    const { harness, conversation } = await answerWith(simpleAnswer('Done.'), {
      behaviour: { refuseStatus: 'not_allowed' },
    });
    const event = mention('status?');
    await harness.event(event);
    await harness.adapter.idle();
    const add = harness.fake.callsOf('reactions.add')[0]!;
    expect(add.args).toMatchObject({
      channel: 'C1',
      timestamp: event.ts,
      name: 'hourglass_flowing_sand',
    });
    expect(harness.fake.callsOf('reactions.remove')).toHaveLength(1);
    expect(harness.fake.workspace.reactions.size).toBe(0);
    // Refused for good in channels of this workspace: the next answer goes straight to the reaction.
    await harness.event(mention('again'));
    await harness.adapter.idle();
    expect(harness.fake.callsOf('assistant.threads.setStatus')).toHaveLength(1);
    expect(conversation.handled).toHaveLength(2);
  });

  it('ends with numbered, escaped source links and a visible notice', async () => {
    let target!: ReplyTarget;
    let message!: ReplyMessage;
    const script: Script = async (t) => {
      target = t;
      message = await t.openMessage('Answer [1]');
      await message.finish({
        text: 'Answer [1] and [2].',
        sources: [
          {
            number: 1,
            title: 'Terms & <Conditions>',
            link: 'https://x.test/a|b?c>d',
            dataSourceUuid: 'd1',
          },
          { number: 2, title: 'Handbook', dataSourceUuid: 'd2' },
        ],
        notice: { kind: 'cut_off', text: 'The answer was cut off <here>.' },
      });
    };
    const { harness } = await answerWith(script);
    await harness.event(mention('cite'));
    await harness.adapter.idle();
    expect(target.limits).toEqual({
      maxChars: 9000,
      minUpdateMs: 250,
      maxMessageAgeMs: 270_000,
      workingRefreshMs: 100_000,
      feedback: true,
    });
    const stop = harness.fake.callsOf('chat.stopStream')[0]!;
    expect(stop.args.markdown_text).toBe(' and [2].');
    expect(stop.args.blocks).toEqual([
      { type: 'divider' },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: '*Sources*\n1. <https://x.test/a%7Cb?c%3Ed|Terms &amp; &lt;Conditions&gt;>\n2. Handbook',
        },
      },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: ':warning: _The answer was cut off &lt;here&gt;._' }],
      },
    ]);
  });
});
