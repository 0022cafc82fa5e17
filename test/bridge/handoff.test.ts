// Graceful shutdown hand-off in the engine: an answer cut by interrupt() whose kept event
// another process will take over ends with the interrupted notice (its answer follows from
// there), records that nothing is left open, and hands the event off after its final state is
// on screen; where nobody can take over, the restart notice ("please ask again") stays.
import { describe, expect, it } from 'vitest';
import { RESTART_NOTICE } from '../../src/bridge/engine.js';
import { HANDED_OFF_NOTICE } from '../../src/bridge/final-answer.js';
import { INTERRUPTED_TEXT } from '../../src/bridge/takeover.js';
import type { AnswerJob, AnswerProgress } from '../../src/bridge/types.js';
import { message, setupEngine } from './helpers/engine-setup.js';
import { ScriptedStream } from './helpers/fake-client.js';

/** A kept event's job that records what the engine does with it. */
function job(canHandOff: boolean | undefined, shown: () => boolean = () => true) {
  const calls: string[] = [];
  const records: AnswerProgress[] = [];
  const kept: AnswerJob = {
    record: async (progress) => {
      records.push(progress);
      calls.push(`record ${JSON.stringify(progress)}`);
    },
    ...(canHandOff === undefined
      ? {}
      : {
          canHandOff: async () => {
            calls.push('canHandOff');
            return canHandOff;
          },
          handOff: async () => {
            // Only once the final state is on screen: the taker's answer comes after it.
            calls.push(shown() ? 'handOff' : 'handOff before the final state');
          },
        }),
  };
  return { kept, calls, records };
}

describe('engine: graceful shutdown hand-off', () => {
  it('a cut answer another process takes over ends with the interrupted notice, then is handed off', async () => {
    const { clock, client, conversation, target } = setupEngine();
    const stream = new ScriptedStream();
    client.onStream = () => stream;
    const [first, second] = [target(), target()];
    const [running, queued] = [
      job(true, () => first.lastFinal !== undefined),
      job(true, () => second.lastFinal !== undefined),
    ];
    const done = Promise.all([
      conversation.handle(message('q1'), first, running.kept),
      conversation.handle(message('q2'), second, queued.kept),
    ]);
    stream.push('Half of the ans');
    await clock.advance(100);
    expect(first.messages[0]?.latest).toBe('Half of the ans');

    conversation.interrupt();
    stream.fail('unavailable', 'aborted');
    await clock.runUntil(done);

    expect(HANDED_OFF_NOTICE.text).toBe(INTERRUPTED_TEXT);
    expect(first.lastFinal?.text).toContain('Half of the ans');
    expect(first.lastFinal?.notice).toEqual(HANDED_OFF_NOTICE);
    expect(running.calls.slice(-3)).toEqual([
      'canHandOff',
      `record ${JSON.stringify({ opened: [] })}`,
      'handOff',
    ]);
    // The question queued behind it was never sent: handed off as well.
    expect(second.lastFinal?.notice).toEqual(HANDED_OFF_NOTICE);
    expect(queued.calls.at(-1)).toBe('handOff');
    expect(client.streamCalls.map((c) => c.query)).toEqual(['q1']);
  });

  it('where nobody can take over, the cut answer says to ask again and is not handed off', async () => {
    const { clock, client, conversation, target } = setupEngine();
    const stream = new ScriptedStream();
    client.onStream = () => stream;
    const [alone, unkept] = [target(), target()];
    const nobody = job(false);
    const done = Promise.all([
      conversation.handle(message('q1'), alone, nobody.kept),
      conversation.handle(message('q2'), unkept, job(undefined).kept),
    ]);
    stream.push('Half');
    await clock.advance(100);
    conversation.interrupt();
    stream.fail('unavailable', 'aborted');
    await clock.runUntil(done);

    expect(alone.lastFinal?.notice).toEqual(RESTART_NOTICE);
    expect(nobody.calls).toContain('canHandOff');
    expect(nobody.calls).not.toContain('handOff');
    expect(unkept.lastFinal?.notice).toEqual(RESTART_NOTICE);
  });

  it('an answer that fails while the bridge runs is never handed off', async () => {
    const { clock, client, conversation, target } = setupEngine();
    const stream = new ScriptedStream();
    client.onStream = () => stream;
    const reply = target();
    const kept = job(true);
    const done = conversation.handle(message('q1'), reply, kept.kept);
    stream.push('Half');
    await clock.advance(100);
    stream.fail('unavailable', 'the service went away');
    await clock.runUntil(done);
    expect(reply.lastFinal?.notice?.text).not.toBe(INTERRUPTED_TEXT);
    expect(kept.calls).not.toContain('canHandOff');
  });
});
