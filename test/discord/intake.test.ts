// The gateway never delivers a message again, so a question that arrives while the store is
// down waits in memory (bounded retries): answered once the store is back; when it stays down,
// the person is told their question was not taken, instead of silence.
import { afterEach, describe, expect, it } from 'vitest';
import { NOT_TAKEN_TEXT, TAKE_RETRY_MS } from '../../src/bridge/intake.js';
import { openState, type State } from '../../src/state/index.js';
import { alice, RecordingConversation, startRig, type Rig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The state store, whose intake keeps fail while `failures` lasts (-1: for good). */
async function flakyState(control: { failures: number }): Promise<State> {
  const inner = await openState('memory://');
  const queue = inner.intake!.queue('discord');
  const keep = queue.keep.bind(queue);
  queue.keep = (key, payload) => {
    if (control.failures !== 0) {
      control.failures -= 1;
      return Promise.reject(new Error('The client is offline'));
    }
    return keep(key, payload);
  };
  return inner;
}

describe('discord: a question while the store is down', () => {
  it('waits for the store and answers once it is back', async () => {
    const control = { failures: 2 };
    const conversation = new RecordingConversation();
    const takeRetryMs = TAKE_RETRY_MS.map(() => 10);
    rig = await startRig(conversation, { state: await flakyState(control), takeRetryMs });
    const { fake } = rig;
    const done = conversation.done(() => true);
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> still there?`, {
      mentions: [fake.bot],
    });
    expect((await done).text).toBe('still there?');
    expect(control.failures).toBe(0);
    expect(conversation.handled).toHaveLength(1);
  });

  it('tells the person when the store stays down', async () => {
    const control = { failures: -1 };
    const conversation = new RecordingConversation();
    // The same number of tries as in production, over less time.
    const takeRetryMs = TAKE_RETRY_MS.map(() => 10);
    rig = await startRig(conversation, { state: await flakyState(control), takeRetryMs });
    const { fake } = rig;
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> hello?`, {
      mentions: [fake.bot],
    });
    const notice = await fake.waitFor<{ content: string; channel_id: string }>(
      'message',
      (m) => m.content === NOT_TAKEN_TEXT,
    );
    expect(notice.channel_id).toBe(fake.textChannel.id);
    expect(conversation.handled).toHaveLength(0);
  });
});
