// What the user sees when the surface refuses a message the final answer needs: the rest of the
// answer, its sources and notice go into the last message that exists, with a visible notice
// when text had to be left out; with no message at all, one warn line says so.
import { describe, expect, it, vi } from 'vitest';
import { Renderer } from '../../src/bridge/renderer.js';
import { SurfaceRateLimitError, type Notice, type SurfaceLimits } from '../../src/bridge/types.js';
import type { Logger } from '../../src/log.js';
import { FakeClock } from './helpers/fake-clock.js';
import { RecordingTarget } from './helpers/recording-target.js';

function setup(limits: Partial<SurfaceLimits> = {}) {
  const clock = new FakeClock();
  const target = new RecordingTarget({ maxChars: 200, minUpdateMs: 100, ...limits }, clock);
  const logger = { warn: vi.fn(), debug: vi.fn(), info: vi.fn(), error: vi.fn() };
  const renderer = new Renderer(target, { clock, logger: logger as unknown as Logger });
  return { clock, target, renderer, logger };
}

const para = (tag: string, n: number) =>
  `${Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ')}.`;
// Three paragraphs of 134, 116 and 134 characters: three messages at maxChars 200.
const A = para('alpha', 18);
const B = para('beta', 18);
const C = para('gamma', 18);
const ANSWER = `${A}\n\n${B}\n\n${C}`;
const SOURCES = [
  { number: 1, title: 'Guide', link: 'https://example.com/guide', dataSourceUuid: 'd1' },
  { number: 2, title: 'FAQ', dataSourceUuid: 'd2' },
];
const INCOMPLETE: Notice = {
  kind: 'incomplete',
  text: 'The rest of this answer could not be posted.',
};
const refused = () => new Error('post refused');

/** Kinds and message indexes of the calls after the first `from` ones. */
const callsAfter = (target: RecordingTarget, from: number) =>
  target.calls
    .slice(from)
    .filter((c) => c.kind === 'open' || c.kind === 'finish')
    .map((c) => `${c.kind}${c.failed ? '!' : ''} ${c.message}`);

async function withFirstMessage() {
  const env = setup();
  env.renderer.push('alpha0 alpha1');
  await env.clock.advance(10);
  expect(env.target.messages).toHaveLength(1);
  return { ...env, before: env.target.calls.length };
}

describe('a final message the surface refuses to open', () => {
  it('last one: its text ends the one before, cut with a notice; sources stay', async () => {
    const { target, renderer, logger, before } = await withFirstMessage();
    target.failNext('open', refused(), 1);
    await renderer.finish({ text: ANSWER, sources: SOURCES });
    expect(target.messages.map((m) => m.final)).toEqual([
      { text: `${A}\n\n`, sources: [] },
      // B and C do not fit together: B stays, the message says the rest is missing.
      { text: `${B}\n\n`, sources: SOURCES, notice: INCOMPLETE },
    ]);
    expect(target.messages.map((m) => m.finishCount)).toEqual([1, 1]);
    // In order: each message is finished once the next is on screen, the last after the refusal.
    expect(callsAfter(target, before)).toEqual(['open 1', 'finish 0', 'open! 2', 'finish 1']);
    expect(target.callsOf('open')[2]!.text).toBe(C);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![1]).toMatch(/could not be opened/);
  });

  it('a middle one: no later message is tried, the answer ends in the last one shown', async () => {
    const { target, renderer, logger, before } = await withFirstMessage();
    target.failNext('open', refused());
    const notice: Notice = {
      kind: 'cut_off',
      text: 'The answer was cut off before it was complete.',
    };
    await renderer.finish({ text: ANSWER, sources: SOURCES, notice });
    expect(callsAfter(target, before)).toEqual(['open! 1', 'finish 0']);
    expect(target.messages).toHaveLength(1);
    const final = target.messages[0]!.final!;
    // Both notices in one (a message carries one): the text makes room for it, cut between words.
    expect(final).toEqual({
      text: A.slice(0, A.indexOf('alpha13')),
      sources: SOURCES,
      notice: {
        kind: 'incomplete',
        text: 'The answer was cut off before it was complete. The rest of this answer could not be posted.',
      },
    });
    expect(final.text.length + final.notice!.text.length + 4).toBeLessThanOrEqual(200);
    expect(target.messages[0]!.finishCount).toBe(1);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it('every one, with a message on screen: the answer ends there', async () => {
    const { target, renderer, logger } = await withFirstMessage();
    target.failNext('open', refused());
    target.failNext('open', refused());
    await renderer.finish({ text: ANSWER, sources: SOURCES });
    expect(target.messages.map((m) => m.final)).toEqual([
      { text: `${A}\n\n`, sources: SOURCES, notice: INCOMPLETE },
    ]);
    expect(target.messages[0]!.finishCount).toBe(1);
    expect(target.callsOf('open').map((c) => !!c.failed)).toEqual([false, true]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['an answer', { text: ANSWER, sources: SOURCES }],
    [
      'a notice',
      {
        text: '',
        sources: [],
        notice: { kind: 'unavailable', text: 'The service could not be reached.' } as Notice,
      },
    ],
  ])('every one, with nothing on screen: %s is logged once at warn', async (_, answer) => {
    const { target, renderer, logger } = setup();
    target.failNext('open', refused());
    await renderer.finish(answer);
    expect(target.messages).toHaveLength(0);
    expect(target.callsOf('open')).toHaveLength(1);
    expect(target.callsOf('finish')).toHaveLength(0);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    const [detail, line] = logger.warn.mock.calls[0]!;
    expect(line).toMatch(/not shown/);
    expect(detail).toMatchObject({ err: expect.any(Error), sealedMessages: 0 });
  });

  it('after messages finished early for age: the refusal is logged once, each finished once', async () => {
    const { clock, target, renderer, logger } = setup({ maxMessageAgeMs: 60_000 });
    renderer.push('Hello there. ');
    await clock.advance(50_000); // sealed at 48 s, nothing left growing
    expect(target.callsOf('finish')).toHaveLength(1);
    target.failNext('open', refused());
    await renderer.finish({ text: 'Hello there. ', sources: SOURCES });
    expect(target.callsOf('open').map((c) => !!c.failed)).toEqual([false, true]);
    expect(target.messages.map((m) => m.finishCount)).toEqual([1]);
    expect(target.messages[0]!.final).toEqual({ text: 'Hello there. ', sources: [] });
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![0]).toMatchObject({ sealedMessages: 1 });
  });

  it('a rate limit is waited out: the message opens and nothing is folded', async () => {
    const { clock, target, renderer, logger } = await withFirstMessage();
    target.failNext('open', new SurfaceRateLimitError(3000), 1);
    await clock.runUntil(renderer.finish({ text: ANSWER, sources: SOURCES }));
    expect(target.finalTexts).toEqual([`${A}\n\n`, `${B}\n\n`, C]);
    expect(target.lastFinal).toEqual({ text: C, sources: SOURCES });
    expect(target.messages.map((m) => m.finishCount)).toEqual([1, 1, 1]);
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
