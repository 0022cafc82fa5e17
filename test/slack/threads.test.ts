// Thread life in Slack: "reset" starts over, messages of one thread reach the engine in the
// order they were sent, and the channel's name goes along with the message.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { threadKey } from '../../src/bridge/types.js';
import { RESET_REPLY } from '../../adapters/slack/events.js';
import { BOT_USER, TEAM } from './fake-slack.js';
import { ALICE, BOSS, Harness, mention, message, nextTs } from './harness.js';
import { RecordingConversation } from './recording.js';
import { useFakeTime, type FakeTime } from '../fake-time.js';

let h: Harness;
let conversation: RecordingConversation;
let time: FakeTime;

// On fake time: Slack's one message a second per channel costs no wall-clock time.
beforeEach(async () => {
  conversation = new RecordingConversation();
  time = useFakeTime();
  h = await Harness.start({ conversation, time });
});
afterEach(async () => {
  await h.close();
  time.restore();
});

const keyOf = (channel: string, thread: string) =>
  threadKey({ platform: 'slack', workspace: TEAM, channel, thread });

describe('Slack threads', () => {
  it('"reset" in a session thread starts over instead of going to the chatbot', async () => {
    const root = nextTs();
    await h.event(mention('start', { ts: root }));
    await time.settle(h.fake.waitFor('chat.stopStream'));
    await h.event(message('Reset!', { thread_ts: root }));
    const reply = await time.settle(h.fake.waitFor('chat.postMessage'));
    expect(reply.args).toMatchObject({ channel: 'C1', thread_ts: root, text: RESET_REPLY });
    expect(conversation.resets).toEqual([keyOf('C1', root)]);
    // With a mention, in any case; and the next message is answered again, without a mention.
    await h.event(mention('`RESET`', { thread_ts: root }));
    await h.event(message('a new question', { thread_ts: root }));
    await h.idle();
    expect(conversation.resets).toEqual([keyOf('C1', root), keyOf('C1', root)]);
    expect(conversation.handled.map((e) => e.message.text)).toEqual(['start', 'a new question']);
    expect(h.fake.callsOf('chat.postMessage')).toHaveLength(2);
  });

  it('"reset" in a DM thread resets that thread; "reset this" is a question', async () => {
    const dm = message('hello', { channel: 'D1', channel_type: 'im' });
    await h.event(dm);
    await h.idle();
    await h.event(
      message(`<@${BOT_USER}> reset.`, { channel: 'D1', channel_type: 'im', thread_ts: dm.ts }),
    );
    await h.event(message('reset this', { channel: 'D1', channel_type: 'im', thread_ts: dm.ts }));
    await h.idle();
    expect(conversation.resets).toEqual([keyOf('D1', dm.ts)]);
    expect(conversation.handled.map((e) => e.message.text)).toEqual(['hello', 'reset this']);
  });

  it('a retried "reset" is answered once', async () => {
    const root = nextTs();
    await h.event(mention('start', { ts: root }));
    await h.idle();
    const event = message('reset', { thread_ts: root });
    const first = await h.event(event);
    await h.event(event, { eventId: first.eventId, retryNum: 1 });
    await h.idle();
    expect(conversation.resets).toHaveLength(1);
    expect(h.fake.callsOf('chat.postMessage')).toHaveLength(1);
  });

  it('hands messages of one thread to the engine in arrival order, even when a lookup is slow', async () => {
    // BOSS is known already; ALICE's users.info is held until the second message has arrived.
    await h.event(mention('warm up', { user: BOSS, channel: 'C2' }));
    await h.idle();
    const slow = h.fake.hold('users.info', (args) => args.user === ALICE);
    const root = nextTs();
    await h.event(mention('first', { ts: root }));
    await slow.reached;
    await h.event(mention('second', { thread_ts: root, user: BOSS }));
    slow.release();
    await h.idle();
    const inThread = conversation.handled.filter((e) => e.message.thread === root);
    expect(inThread.map((e) => e.message.text)).toEqual(['first', 'second']);
    expect(inThread[0]?.message.userName).toBe('Alice');
    // Nothing is kept per thread once it is idle.
    expect(h.adapter.orderedThreads).toBe(0);
  });

  it('passes the channel name along (conversations.info, cached), none for DMs or unknown channels', async () => {
    await h.event(mention('one'));
    await h.event(mention('two'));
    await h.event(mention('elsewhere', { channel: 'CUNKNOWN' }));
    await h.event(message('dm', { channel: 'D1', channel_type: 'im' }));
    await h.idle();
    const names = conversation.handled.map((e) => [e.message.text, e.message.channelName]);
    // Different threads: in any order.
    expect(names.sort()).toEqual([
      ['dm', undefined],
      ['elsewhere', undefined],
      ['one', 'general'],
      ['two', 'general'],
    ]);
    const asked = h.fake.callsOf('conversations.info').map((c) => c.args.channel);
    expect(asked.sort()).toEqual(['C1', 'CUNKNOWN']);
  });
});
