// Graceful shutdown in the engine: activity() counts messages waiting for their thread and
// answers streaming; interrupt() ends the answer running with the restart notice, and a message
// still queued behind it is not sent to the service at all, it gets the same notice.
import { describe, expect, it } from 'vitest';
import { RESTART_NOTICE } from '../../src/bridge/engine.js';
import type { AnswerOutcome } from '../../src/bridge/observer.js';
import { message, setupEngine } from './helpers/engine-setup.js';
import { ScriptedStream } from './helpers/fake-client.js';

describe('engine shutdown', () => {
  it('ends the running answer and the queued one with the restart notice', async () => {
    const outcomes: AnswerOutcome[] = [];
    const firstWords: number[] = [];
    const { clock, client, conversation, target } = setupEngine({
      observer: {
        answerFinished: (_platform, outcome) => outcomes.push(outcome),
        firstWords: (_platform, ms) => firstWords.push(ms),
      },
    });
    const stream = new ScriptedStream();
    client.onStream = () => stream;
    const [first, second] = [target(), target()];
    const done = Promise.all([
      conversation.handle(message('q1'), first),
      conversation.handle(message('q2'), second),
    ]);
    stream.push('Half of the ans');
    await clock.advance(100);
    expect(first.messages[0]?.latest).toBe('Half of the ans');
    expect(conversation.activity()).toEqual({ waiting: 1, streaming: 1 });

    conversation.interrupt();
    stream.fail('unavailable', 'aborted'); // the real client's stream rejects on the abort
    await clock.runUntil(done);

    expect(first.lastFinal?.text).toContain('Half of the ans');
    expect(first.lastFinal?.notice).toEqual(RESTART_NOTICE);
    expect(second.lastFinal?.notice).toEqual(RESTART_NOTICE);
    expect(client.streamCalls.map((c) => c.query)).toEqual(['q1']);
    expect(conversation.activity()).toEqual({ waiting: 0, streaming: 0 });
    expect(outcomes).toEqual(['cut_off', 'cut_off']);
    // Only the answer that showed its own words counts; a notice alone is not first words.
    expect(firstWords).toHaveLength(1);
  });
});
