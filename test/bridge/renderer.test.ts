import { describe, expect, it, vi } from 'vitest';
import { CONTINUATION_MARKER } from '../../src/bridge/final-layout.js';
import { Renderer } from '../../src/bridge/renderer.js';
import { SurfaceRateLimitError, type SurfaceLimits } from '../../src/bridge/types.js';
import type { Logger } from '../../src/log.js';
import { FakeClock } from './helpers/fake-clock.js';
import { RecordingTarget } from './helpers/recording-target.js';

function setup(limits: Partial<SurfaceLimits> = {}) {
  const clock = new FakeClock();
  const target = new RecordingTarget({ maxChars: 2000, minUpdateMs: 1000, ...limits }, clock);
  const logger = { warn: vi.fn(), debug: vi.fn(), info: vi.fn(), error: vi.fn() };
  const renderer = new Renderer(target, { clock, logger: logger as unknown as Logger });
  return { clock, target, renderer, logger };
}

/** Streams `text` in pieces of `size` chars, one piece every `everyMs` of fake time. */
async function stream(
  clock: FakeClock,
  renderer: Renderer,
  text: string,
  size: number,
  everyMs: number,
) {
  const pushedAt: Array<{ at: number; length: number }> = [];
  for (let end = size; end < text.length + size; end += size) {
    const slice = text.slice(0, Math.min(end, text.length));
    renderer.push(slice);
    pushedAt.push({ at: clock.now(), length: slice.length });
    await clock.advance(everyMs);
  }
  return pushedAt;
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('renderer pacing', () => {
  it('shows the first words at once, then updates no closer than minUpdateMs', async () => {
    const { clock, target, renderer } = setup();
    const text = words(200); // ~1,300 chars: one message
    await stream(clock, renderer, text, 20, 50);
    await clock.advance(2000);
    const live = target.calls.filter((c) => c.kind === 'open' || c.kind === 'update');
    expect(live[0]).toMatchObject({ kind: 'open', at: 0, text: text.slice(0, 20) });
    for (let i = 1; i < live.length; i++) {
      expect(live[i]!.at - live[i - 1]!.at).toBeGreaterThanOrEqual(1000);
    }
    // About one update a second over the ~3.3 s stream, and the last one shows everything.
    expect(target.messages).toHaveLength(1);
    expect(live.length).toBeGreaterThanOrEqual(4);
    expect(live.length).toBeLessThanOrEqual(6);
    expect(live[live.length - 1]!.text).toBe(text);
    await renderer.finish({ text, sources: [] });
    expect(target.messages[0]!.final).toEqual({ text, sources: [] });
  });

  it('sends the latest text, never an intermediate one, and nothing when nothing changed', async () => {
    const { clock, target, renderer } = setup();
    renderer.push('One');
    await clock.advance(100);
    renderer.push('One two');
    await clock.advance(100);
    renderer.push('One two three');
    await clock.advance(2000);
    renderer.push('One two three');
    await clock.advance(3000);
    expect(target.messages[0]!.texts).toEqual(['One', 'One two three']);
    expect(target.callsOf('update').map((c) => c.at)).toEqual([1000]);
    await renderer.finish({ text: 'One two three', sources: [] });
    expect(clock.pending).toBe(0);
  });

  it('keeps at most one update in flight when the surface is slow', async () => {
    const { clock, target, renderer } = setup({ minUpdateMs: 500 });
    target.callDelayMs = 1700;
    const text = words(200);
    await stream(clock, renderer, text, 15, 100);
    await clock.advance(5000);
    const message = target.messages[0]!;
    expect(message.maxInFlight).toBe(1);
    const updates = target.callsOf('update');
    for (let i = 1; i < updates.length; i++) {
      expect(updates[i]!.at - updates[i - 1]!.at).toBeGreaterThanOrEqual(1700);
    }
    expect(message.latest).toBe(text);
    await clock.runUntil(renderer.finish({ text, sources: [] }));
    expect(message.finishCount).toBe(1);
  });

  it('waits out a SurfaceRateLimitError, then sends the latest text', async () => {
    const { clock, target, renderer } = setup();
    renderer.push('First');
    await clock.advance(1000);
    target.failNext('update', new SurfaceRateLimitError(5000));
    renderer.push('First second');
    await clock.advance(10);
    expect(target.callsOf('update')).toHaveLength(1);
    expect(target.callsOf('update')[0]!.failed).toBe(true);
    renderer.push('First second third');
    await clock.advance(3000);
    expect(target.callsOf('update')).toHaveLength(1);
    await clock.advance(3000);
    const updates = target.callsOf('update');
    expect(updates).toHaveLength(2);
    expect(updates[1]).toMatchObject({ at: 6000, text: 'First second third' });
    await renderer.finish({ text: 'First second third', sources: [] });
  });

  it('logs other update errors and keeps going', async () => {
    const { clock, target, renderer, logger } = setup();
    renderer.push('a');
    await clock.advance(1000);
    target.failNext('update', new Error('edit refused'));
    renderer.push('a b');
    await clock.advance(500);
    renderer.push('a b c');
    await clock.advance(2000);
    expect(logger.warn).toHaveBeenCalled();
    expect(target.messages[0]!.texts).toEqual(['a', 'a b c']);
    await renderer.finish({ text: 'a b c', sources: [] });
    expect(target.messages[0]!.final?.text).toBe('a b c');
  });

  it('retries finish on a rate limit', async () => {
    const { clock, target, renderer } = setup();
    renderer.push('Hello');
    await clock.advance(10);
    target.failNext('finish', new SurfaceRateLimitError(2500));
    await clock.runUntil(renderer.finish({ text: 'Hello world', sources: [] }));
    const finishes = target.callsOf('finish');
    expect(finishes.map((f) => [f.at - finishes[0]!.at, f.failed])).toEqual([
      [0, true],
      [2500, false],
    ]);
    expect(target.messages[0]!.final?.text).toBe('Hello world');
  });
});

describe('renderer continuation messages', () => {
  it('continues past maxChars in new messages and ends with every part, nothing lost', async () => {
    const { clock, target, renderer } = setup({ maxChars: 300, minUpdateMs: 200 });
    const text = `${words(40)}.\n\n${words(50)}. ${words(30)}\n\n${words(60)}`;
    await stream(clock, renderer, text, 25, 50);
    await clock.advance(1000);
    expect(target.messages.length).toBeGreaterThanOrEqual(3);
    for (const call of target.calls) {
      if (call.text !== undefined) expect(call.text.length).toBeLessThanOrEqual(300);
    }
    // Messages were opened in order, each only after the previous one was on screen.
    const opens = target.callsOf('open').map((c) => c.message);
    expect(opens).toEqual([...opens].sort((a, b) => a - b));
    await renderer.finish({ text, sources: [{ number: 1, title: 'T', dataSourceUuid: 'd' }] });
    expect(target.finalTexts.join('')).toBe(text);
    expect(target.messages.every((m) => m.finishCount === 1)).toBe(true);
    expect(target.lastFinal?.sources).toHaveLength(1);
    expect(target.messages[0]!.final?.sources).toEqual([]);
  });

  it('finishes surplus messages with a continuation marker when the final text is shorter', async () => {
    const { clock, target, renderer } = setup({ maxChars: 200, minUpdateMs: 100 });
    await stream(clock, renderer, words(100), 40, 50);
    await clock.advance(500);
    const opened = target.messages.length;
    expect(opened).toBeGreaterThanOrEqual(3);
    await renderer.finish({ text: 'Short final answer.', sources: [] });
    expect(target.finalTexts).toEqual([
      'Short final answer.',
      ...Array(opened - 1).fill(CONTINUATION_MARKER),
    ]);
  });

  it('finishes every opened message once, even after one that never opened', async () => {
    const { clock, target, renderer } = setup({ maxChars: 200, minUpdateMs: 100 });
    const text = `${words(25)}\n\n${words(25)}\n\n${words(25)}`;
    renderer.push(text.slice(0, 150));
    await clock.advance(10);
    expect(target.messages).toHaveLength(1);
    // The second message cannot be opened: after three refusals it is given up on.
    for (let i = 0; i < 3; i++) target.failNext('open', new Error('post refused'));
    renderer.push(text.slice(0, 330));
    await clock.advance(1000);
    expect(target.callsOf('open').filter((c) => c.failed)).toHaveLength(3);
    expect(target.messages).toHaveLength(1);
    // The third one opens (the muted one does not hold it back).
    renderer.push(text);
    await clock.advance(1000);
    expect(target.messages).toHaveLength(2);
    // A shorter stored answer: two parts, for the two messages on screen.
    const final = `${words(25)}\n\n${words(25)}`;
    await clock.runUntil(renderer.finish({ text: final, sources: [] }));
    expect(target.messages.map((m) => m.finishCount)).toEqual([1, 1]);
    expect(target.finalTexts.join('')).toBe(final);
    expect(target.callsOf('open').filter((c) => !c.failed)).toHaveLength(2);
  });

  it('opens more messages at the end when the final text needs them', async () => {
    const { clock, target, renderer } = setup({ maxChars: 200 });
    renderer.push('Short.');
    await clock.advance(10);
    const long = `${words(30)}\n\n${words(30)}\n\n${words(30)}`;
    await renderer.finish({ text: long, sources: [] });
    expect(target.messages.length).toBeGreaterThan(1);
    expect(target.finalTexts.join('')).toBe(long);
  });

  it('rolls over to a new message before maxMessageAgeMs, finishing the old one in time', async () => {
    const { clock, target, renderer } = setup({ maxMessageAgeMs: 60_000, minUpdateMs: 1000 });
    const text = words(400);
    const pushes = await stream(clock, renderer, text, 10, 500); // ~5 minutes of slow streaming
    await clock.advance(1000);
    expect(target.messages.length).toBeGreaterThanOrEqual(3);
    // Updates kept their pace all along (the far-off age timer did not hold them back).
    const live = target.calls.filter((c) => c.kind === 'open' || c.kind === 'update');
    expect(live.length).toBeGreaterThan((pushes.length * 500) / 1000 - 10);
    const opens = target.callsOf('open');
    for (const message of target.messages.slice(0, -1)) {
      const finished = target.calls.find((c) => c.kind === 'finish' && c.message === message.index);
      expect(finished).toBeDefined();
      expect(finished!.at - opens[message.index]!.at).toBeLessThan(60_000);
    }
    await renderer.finish({ text, sources: [] });
    expect(target.messages.every((m) => m.finishCount === 1)).toBe(true);
    expect(target.finalTexts.join('')).toBe(text);
  });
});

describe('renderer working indicator and notices', () => {
  it('refreshes the working indicator until the first words', async () => {
    const { clock, target, renderer } = setup({ workingRefreshMs: 5000 });
    renderer.start();
    await clock.advance(12_000);
    renderer.push('Finally');
    await clock.advance(20_000);
    expect(target.callsOf('working').map((c) => c.at)).toEqual([0, 5000, 10_000]);
    await renderer.finish({ text: 'Finally', sources: [] });
    await clock.advance(20_000);
    expect(target.callsOf('working')).toHaveLength(3);
    expect(clock.pending).toBe(0);
  });

  it('opens a message for a notice when nothing was shown', async () => {
    const { target, renderer } = setup();
    const notice = { kind: 'unavailable' as const, text: 'The service could not be reached.' };
    await renderer.finish({ text: '', sources: [], notice });
    expect(target.callsOf('open')[0]!.text).toBe(notice.text);
    expect(target.messages[0]!.final).toEqual({ text: '', sources: [], notice });
  });

  it('keeps partial text and puts the notice on the last message', async () => {
    const { clock, target, renderer } = setup({ maxChars: 150 });
    const partial = words(50);
    await stream(clock, renderer, partial, 30, 100);
    const notice = { kind: 'cut_off' as const, text: 'The answer was cut off.' };
    await renderer.finish({ text: partial, sources: [], notice });
    expect(target.finalTexts.join('')).toBe(partial);
    expect(target.lastFinal?.notice).toEqual(notice);
    expect(target.lastFinal!.text.length + notice.text.length).toBeLessThanOrEqual(150);
    expect(target.messages.slice(0, -1).every((m) => m.final?.notice === undefined)).toBe(true);
  });

  it('shows unfinished markdown safely while streaming', async () => {
    const { clock, target, renderer } = setup();
    renderer.push('Here:\n```js\nlet a = **1');
    await clock.advance(10);
    expect(target.messages[0]!.texts[0]).toBe('Here:\n```js\nlet a = **1\n```');
    await renderer.finish({ text: 'Here:\n```js\nlet a = **1\n```', sources: [] });
  });
});
