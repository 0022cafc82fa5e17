// An answer taken over from a dead replica (a kept event whose lease ran out): the engine
// closes what the dead replica left open, and gives the answer the service stored for the
// question it had sent, never asking twice; a question the service never took is asked.
// Every answer records its session, query and opened messages for whoever may take over.
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_TEXT } from '../../src/bridge/takeover.js';
import {
  threadKey,
  type AnswerJob,
  type AnswerProgress,
  type ReplyMessage,
} from '../../src/bridge/types.js';
import { message, setupEngine } from './helpers/engine-setup.js';
import { RecordingTarget } from './helpers/recording-target.js';

/** A target whose messages have ids, and that records what it was asked to close. */
class TakeoverTarget extends RecordingTarget {
  readonly closed: Array<{ ids: readonly string[]; notice: string }> = [];
  private opened = 0;

  override async openMessage(text: string): Promise<ReplyMessage> {
    const inner = await super.openMessage(text);
    return {
      id: `ts-${++this.opened}`,
      update: (t) => inner.update(t),
      finish: (c) => inner.finish(c),
    };
  }

  async closeInterrupted(ids: readonly string[], notice: string): Promise<void> {
    this.closed.push({ ids, notice });
  }
}

function job(previous?: AnswerProgress) {
  const records: AnswerProgress[] = [];
  const answerJob: AnswerJob = {
    ...(previous ? { previous } : {}),
    record: async (progress) => void records.push(progress),
  };
  return { job: answerJob, records };
}

/** A thread whose session already holds the answer to `query` (the dead replica asked it). */
async function askedBefore(setup: ReturnType<typeof setupEngine>, query: string) {
  const { client, state } = setup;
  const session = await client.createSession('bot-1');
  for await (const _ of await client.streamMessage(session.uuid, { query })) void _;
  client.streamCalls.length = 0;
  await state.sessions.set(threadKey(message(query)), {
    sessionUuid: session.uuid,
    chatbotUuid: 'bot-1',
    createdAt: new Date(0).toISOString(),
  });
  return session.uuid;
}

describe('taking over an interrupted answer', () => {
  it('closes what was left open and gives the stored answer, without asking again', async () => {
    const setup = setupEngine();
    const sessionUuid = await askedBefore(setup, 'why?');
    const target = new TakeoverTarget({ maxChars: 2000, minUpdateMs: 1000 }, setup.clock);
    const { job: answerJob } = job({ sessionUuid, query: 'why?', opened: ['old-1', 'old-2'] });
    await setup.clock.runUntil(setup.conversation.handle(message('why?'), target, answerJob));
    expect(target.closed).toEqual([{ ids: ['old-1', 'old-2'], notice: INTERRUPTED_TEXT }]);
    expect(setup.client.streamCalls).toEqual([]);
    expect(target.finalTexts).toEqual(['Answer to why?']);
    expect(target.lastFinal?.notice).toBeUndefined();
  });

  it('asks a question the service never stored, once the wait for it is over', async () => {
    const setup = setupEngine({ takeoverWaitMs: 2_000 });
    const session = await setup.client.createSession('bot-1');
    const target = new TakeoverTarget({ maxChars: 2000, minUpdateMs: 1000 }, setup.clock);
    const { job: answerJob, records } = job({ sessionUuid: session.uuid, query: 'lost?' });
    const done = setup.conversation.handle(message('lost?'), target, answerJob);
    await setup.clock.advance(1_000);
    // Still waiting for the stored answer: nothing was asked yet.
    expect(setup.client.streamCalls).toEqual([]);
    await setup.clock.runUntil(done);
    expect(setup.client.streamCalls.map((c) => c.query)).toEqual(['lost?']);
    expect(target.finalTexts).toEqual(['Answer to lost?']);
    expect(target.closed).toEqual([]);
    expect(records[0]).toMatchObject({ query: 'lost?' });
  });

  it('records the session and query sent, then each message opened', async () => {
    const setup = setupEngine();
    const target = new TakeoverTarget({ maxChars: 2000, minUpdateMs: 1000 }, setup.clock);
    const { job: answerJob, records } = job();
    await setup.clock.runUntil(setup.conversation.handle(message('new?'), target, answerJob));
    const sessionUuid = setup.client.streamCalls[0]!.sessionUuid;
    // The intent to open is recorded before the platform is asked, the id once it answered.
    expect(records).toEqual([
      { sessionUuid, query: 'new?' },
      { opening: true },
      { opened: ['ts-1'], opening: false },
      { delivered: true },
    ]);
    expect(target.closed).toEqual([]);
  });

  it('delivers nothing again when the dead replica had shown the whole answer', async () => {
    // It died after the final message and before the event was finished: only its sign of
    // work may still be on.
    const setup = setupEngine();
    const sessionUuid = await askedBefore(setup, 'done?');
    const target = new TakeoverTarget({ maxChars: 2000, minUpdateMs: 1000 }, setup.clock);
    const { job: answerJob, records } = job({
      sessionUuid,
      query: 'done?',
      opened: ['old-1'],
      delivered: true,
    });
    await setup.clock.runUntil(setup.conversation.handle(message('done?'), target, answerJob));
    expect(target.closed).toEqual([]);
    expect(target.finalTexts).toEqual([]);
    expect(setup.client.streamCalls).toEqual([]);
    expect(target.calls.filter((c) => c.kind !== 'working').map((c) => c.kind)).toEqual([
      'stopWorking',
    ]);
    expect(records).toEqual([]);
  });
});
