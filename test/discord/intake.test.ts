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
  // On fake time at the production waits (TAKE_RETRY_MS: about eight seconds in all).
  it('waits for the store and answers once it is back', async () => {
    const control = { failures: 2 };
    const conversation = new RecordingConversation();
    rig = await startRig(conversation, { state: await flakyState(control), fakeTime: true });
    const { fake, time } = rig;
    const done = conversation.done(() => true);
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> still there?`, {
      mentions: [fake.bot],
    });
    expect((await rig.settle(done)).text).toBe('still there?');
    expect(control.failures).toBe(0);
    expect(conversation.handled).toHaveLength(1);
    // The schedule: two failed tries, so the first two waits.
    expect(time!.elapsed()).toBeGreaterThanOrEqual(TAKE_RETRY_MS[0]! + TAKE_RETRY_MS[1]!);
    expect(time!.elapsed()).toBeLessThan(TAKE_RETRY_MS[0]! + TAKE_RETRY_MS[1]! + TAKE_RETRY_MS[2]!);
  });

  it('tells the person when the store stays down', async () => {
    const control = { failures: -1 };
    const conversation = new RecordingConversation();
    rig = await startRig(conversation, { state: await flakyState(control), fakeTime: true });
    const { fake, time } = rig;
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> hello?`, {
      mentions: [fake.bot],
    });
    const notice = await rig.settle(
      fake.waitFor<{ content: string; channel_id: string }>(
        'message',
        (m) => m.content === NOT_TAKEN_TEXT,
      ),
    );
    expect(notice.channel_id).toBe(fake.textChannel.id);
    expect(conversation.handled).toHaveLength(0);
    // The schedule: told only once every wait of the production retries has passed.
    const allWaits = TAKE_RETRY_MS.reduce((sum, ms) => sum + ms, 0);
    expect(time!.elapsed()).toBeGreaterThanOrEqual(allWaits);
  });
});
