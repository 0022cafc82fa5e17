// The engine's part of feedback: a complete answer on a surface that takes votes is remembered
// and its last message carries the reference; failed answers and other surfaces get none.
import { describe, expect, it } from 'vitest';
import { castVote, voteAcknowledgement } from '../../src/bridge/feedback.js';
import { message, setupEngine } from './helpers/engine-setup.js';

describe('engine feedback', () => {
  it('remembers a complete answer and hands its reference to the last message only', async () => {
    const { clock, client, conversation, target, state } = setupEngine({}, { maxChars: 100 });
    client.reply = () => ({ pieces: [`${'word '.repeat(30)}end.`] });
    const t = target();
    t.limits.feedback = true;
    await clock.runUntil(conversation.handle(message('long one?', { thread: 'th9' }), t));
    expect(t.messages.length).toBeGreaterThan(1);
    const finals = t.messages.map((m) => m.final!);
    expect(finals.slice(0, -1).every((f) => f.feedback === undefined)).toBe(true);
    const ref = finals.at(-1)!.feedback!;
    expect(ref.answerId).toMatch(/^message-/);
    const remembered = await state.feedback.answer('slack', 'T1', ref.answerId);
    expect(remembered).toMatchObject({
      question: 'long one?',
      chatbotUuid: 'bot-1',
      channel: 'C1',
      thread: 'th9',
    });
    expect(remembered!.answerExcerpt.startsWith('word word')).toBe(true);

    const outcome = await castVote(
      { state },
      {
        platform: 'slack',
        workspace: 'T1',
        answerId: ref.answerId,
        userId: 'U7',
        vote: 'up',
      },
    );
    expect(outcome.kind).toBe('recorded');
    expect(voteAcknowledgement(outcome)).toContain('👍');
    const unknown = await castVote(
      { state },
      { ...{ platform: 'slack', workspace: 'T1' }, answerId: 'nope', userId: 'U7', vote: 'down' },
    );
    expect(unknown).toEqual({ kind: 'unknown' });
  });

  it('offers no votes on a failed answer or where the surface takes none', async () => {
    const { clock, client, conversation, target, state } = setupEngine();
    client.reply = () => ({ pieces: ['partial'], errorMessage: 'model overloaded' });
    const failed = target();
    failed.limits.feedback = true;
    await clock.runUntil(conversation.handle(message('a?'), failed));
    expect(failed.lastFinal?.notice).toBeDefined();
    expect(failed.lastFinal?.feedback).toBeUndefined();

    client.reply = () => ({ pieces: ['Fine answer.'] });
    const plain = target();
    await clock.runUntil(conversation.handle(message('b?', { thread: 'th2' }), plain));
    expect(plain.lastFinal?.text).toBe('Fine answer.');
    expect(plain.lastFinal?.feedback).toBeUndefined();
    expect(await state.feedback.list()).toEqual([]);
  });
});
