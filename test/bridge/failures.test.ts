import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/service/errors.js';
import { message, setupEngine } from './helpers/engine-setup.js';
import { chatbot, ScriptedStream } from './helpers/fake-client.js';
import type { RecordingTarget } from './helpers/recording-target.js';

/** Every opened message finished exactly once, working stopped, no internal text shown. */
function expectFinalState(t: RecordingTarget) {
  expect(t.messages.length).toBeGreaterThan(0);
  expect(t.messages.every((m) => m.finishCount === 1)).toBe(true);
  expect(t.callsOf('stopWorking')).toHaveLength(1);
  const shown = JSON.stringify(t.messages.map((m) => m.final));
  expect(shown).not.toMatch(/\bat \S+:\d+|Error:|ServiceError|\(\d{3} on /);
}

function refuseWith(error: unknown) {
  const env = setupEngine();
  env.client.streamMessage = async () => {
    throw error;
  };
  return env;
}

describe('failures before any text', () => {
  it.each([
    ['unavailable', 'unavailable', /could not be reached/],
    ['timeout', 'timeout', /too long/],
    ['auth', 'error', /API key/],
  ] as const)('%s → a %s notice', async (kind, noticeKind, text) => {
    const { conversation, target } = refuseWith(
      new ServiceError(kind, `boom (503 on POST /api/v1/session/x/message/stream)`),
    );
    const t = target();
    await conversation.handle(message('q'), t);
    expectFinalState(t);
    expect(t.messages).toHaveLength(1);
    expect(t.lastFinal).toMatchObject({ text: '', notice: { kind: noticeKind } });
    expect(t.lastFinal!.notice!.text).toMatch(text);
  });

  it("rate limited → the chatbot's own message as the service sent it", async () => {
    const { conversation, target } = refuseWith(
      new ServiceError('rate_limited', 'Slow down, friend!', { status: 429 }),
    );
    const t = target();
    await conversation.handle(message('q'), t);
    expectFinalState(t);
    expect(t.lastFinal!.notice).toEqual({ kind: 'rate_limited', text: 'Slow down, friend!' });
  });

  it("rate limited without a message → the chatbot's rate_limit_message from its settings", async () => {
    const env = refuseWith(
      new ServiceError(
        'rate_limited',
        'rate limited (429 on POST /api/v1/session/s/message/stream)',
      ),
    );
    env.client.chatbots = [chatbot('bot-1', { rate_limit_message: 'Easy there — one at a time.' })];
    const t = env.target();
    await env.conversation.handle(message('q'), t);
    expect(t.lastFinal!.notice).toEqual({
      kind: 'rate_limited',
      text: 'Easy there — one at a time.',
    });
  });

  it('session creation failing ends in a notice too', async () => {
    const env = setupEngine();
    env.client.createSession = async () => {
      throw new ServiceError('unavailable', 'connect ECONNREFUSED');
    };
    const t = env.target();
    await env.conversation.handle(message('q'), t);
    expectFinalState(t);
    expect(t.lastFinal!.notice!.kind).toBe('unavailable');
  });

  it('an unexpected exception shows a generic notice, never the stack', async () => {
    const { conversation, target } = refuseWith(new TypeError('x is not a function'));
    const t = target();
    await conversation.handle(message('q'), t);
    expectFinalState(t);
    expect(t.lastFinal!.notice!.kind).toBe('error');
    expect(t.lastFinal!.notice!.text).not.toContain('function');
  });
});

describe('failures mid-stream', () => {
  function brokenAfter(pieces: string[], kind: ServiceError['kind']) {
    const env = setupEngine();
    env.client.onStream = () => {
      const s = new ScriptedStream();
      s.push(...pieces);
      env.clock.setTimer(() => s.fail(kind), 2500);
      return s;
    };
    return env;
  }

  it('a broken stream keeps the partial text and says the answer was cut off', async () => {
    const { clock, conversation, target } = brokenAfter(
      ['The answer ', 'starts [1.1] here'],
      'unavailable',
    );
    const t = target();
    const done = conversation.handle(message('q'), t);
    await clock.advance(1100);
    // First words at once, then the rest with the live marker shown as a footnote number.
    expect(t.messages[0]!.texts).toEqual(['The answer ', 'The answer starts [1] here']);
    await clock.runUntil(done);
    expectFinalState(t);
    expect(t.lastFinal).toMatchObject({
      text: 'The answer starts here',
      notice: { kind: 'cut_off' },
    });
  });

  it('an idle timeout mid-stream keeps the partial text with a timeout notice', async () => {
    const { clock, conversation, target } = brokenAfter(['Partial words'], 'timeout');
    const t = target();
    await clock.runUntil(conversation.handle(message('q'), t));
    expectFinalState(t);
    expect(t.lastFinal).toMatchObject({ text: 'Partial words', notice: { kind: 'timeout' } });
  });

  it('a long answer cut off mid-way finishes every one of its messages', async () => {
    const env = setupEngine({}, { maxChars: 200, minUpdateMs: 100 });
    const long = Array.from({ length: 120 }, (_, i) => `w${i}`).join(' ');
    env.client.onStream = () => {
      const s = new ScriptedStream();
      s.push(long);
      env.clock.setTimer(() => s.fail('unavailable'), 1000);
      return s;
    };
    const t = env.target();
    await env.clock.runUntil(env.conversation.handle(message('q'), t));
    expectFinalState(t);
    expect(t.messages.length).toBeGreaterThan(2);
    expect(t.finalTexts.join('')).toBe(long);
    expect(t.lastFinal!.notice!.kind).toBe('cut_off');
  });

  it('an in-band error recorded on the stored message is shown with the text kept', async () => {
    const env = setupEngine();
    env.client.reply = () => ({
      pieces: ['Sorry, the context is too long.'],
      errorMessage: 'context_length_exceeded',
    });
    const t = env.target();
    await env.conversation.handle(message('q'), t);
    expectFinalState(t);
    expect(t.lastFinal).toMatchObject({
      text: 'Sorry, the context is too long.',
      notice: { kind: 'error', text: 'The chatbot reported an error: context_length_exceeded' },
    });
  });

  it('reading the stored message failing falls back to the streamed text', async () => {
    const env = setupEngine();
    env.client.failListMessages = new ServiceError('unavailable', 'down');
    const t = env.target();
    await env.conversation.handle(message('q'), t);
    expectFinalState(t);
    expect(t.lastFinal).toEqual({ text: 'Answer to q', sources: [] });
  });

  it('an empty answer says so', async () => {
    const env = setupEngine();
    env.client.reply = () => ({ pieces: [] });
    const t = env.target();
    await env.conversation.handle(message('q'), t);
    expectFinalState(t);
    expect(t.lastFinal!.notice!.text).toMatch(/no answer/);
  });
});
