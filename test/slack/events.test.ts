// Event routing through the real Bolt HTTP receiver: who gets an answer, in which thread, once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOT_USER, TEAM } from './fake-slack.js';
import { ALICE, Harness, mention, message, nextTs, sign } from './harness.js';
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

describe('Slack events over HTTP', () => {
  it('refuses a request with a bad signature (401) and answers nothing', async () => {
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: TEAM,
      event_id: 'EvBad',
      event: mention('hi'),
    });
    const forged = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sign(body, undefined, 'wrong-secret') },
      body,
    });
    expect(forged.status).toBe(401);
    const ok = await h.event(mention('hi'));
    expect(ok.status).toBe(200);
    await time.settle(h.fake.waitFor('chat.stopStream'));
    await h.idle();
    expect(conversation.handled).toHaveLength(1);
  });

  it('answers a top-level mention in a new thread of that message, streamed natively', async () => {
    const event = mention('what is  the <https://example.com|refund> policy?');
    await h.event(event);
    const stop = await time.settle(h.fake.waitFor('chat.stopStream'));
    const [entry] = conversation.handled;
    expect(entry?.message).toMatchObject({
      platform: 'slack',
      workspace: TEAM,
      channel: 'C1',
      thread: event.ts,
      messageId: event.ts,
      userId: ALICE,
      userName: 'Alice',
      text: 'what is the refund (https://example.com) policy?',
    });
    const start = h.fake.callsOf('chat.startStream')[0]!;
    expect(start.args).toMatchObject({
      channel: 'C1',
      thread_ts: event.ts,
      recipient_user_id: ALICE,
      recipient_team_id: TEAM,
      markdown_text: 'Hello ',
    });
    expect(h.fake.callsOf('chat.appendStream').map((c) => c.args.markdown_text)).toEqual([
      'there.',
    ]);
    expect(h.fake.workspace.visibleText(String(stop.args.ts))).toBe('Hello there.');
    // The thinking status was shown on the new thread and cleared.
    const statuses = h.fake.workspace.statuses.map((s) => [s.threadTs, s.status]);
    expect(statuses).toEqual([
      [event.ts, 'is thinking…'],
      [event.ts, ''],
    ]);
  });

  it('answers a mention inside a thread in that thread', async () => {
    const root = nextTs();
    const event = mention('and this?', { thread_ts: root });
    await h.event(event);
    await time.settle(h.fake.waitFor('chat.stopStream'));
    expect(conversation.handled[0]?.message.thread).toBe(root);
    expect(h.fake.callsOf('chat.startStream')[0]?.args.thread_ts).toBe(root);
  });

  it('handles a mention once: the message event carrying it is not answered again', async () => {
    const event = mention('hello');
    await h.event({ ...event, type: 'message', channel_type: 'channel' });
    await h.event(event);
    await time.settle(h.fake.waitFor('chat.stopStream'));
    await h.idle();
    expect(conversation.handled).toHaveLength(1);
  });

  it('answers follow-ups without a mention only in threads that have a session', async () => {
    const root = nextTs();
    await h.event(message('no session here', { thread_ts: root }));
    await h.event(message('top level chatter'));
    await h.idle();
    expect(conversation.handled).toHaveLength(0);

    const first = mention('start', { ts: root });
    await h.event(first);
    await time.settle(h.fake.waitFor('chat.stopStream'));
    await h.event(message('and a follow-up', { thread_ts: root }));
    await h.idle();
    expect(conversation.handled.map((e) => [e.message.thread, e.message.text])).toEqual([
      [root, 'start'],
      [root, 'and a follow-up'],
    ]);
  });

  it('answers direct messages, each DM thread its own session, without recipient fields', async () => {
    const dm = message('hi in a DM', { channel: 'D1', channel_type: 'im' });
    await h.event(dm);
    const start = await time.settle(h.fake.waitFor('chat.startStream'));
    expect(start.args.thread_ts).toBe(dm.ts);
    expect(start.args.recipient_user_id).toBeUndefined();
    const reply = message('in the thread', { channel: 'D1', channel_type: 'im', thread_ts: dm.ts });
    const other = message(`<@${BOT_USER}> another topic`, { channel: 'D1', channel_type: 'im' });
    await h.event(reply);
    await h.event(other);
    await h.idle();
    expect(conversation.handled.map((e) => e.message.thread)).toEqual([dm.ts, dm.ts, other.ts]);
    expect(conversation.handled[2]?.message.text).toBe('another topic');
  });

  it('answers one event once across retries and a second delivery of the same message', async () => {
    const event = mention('only once please');
    const first = await h.event(event);
    await h.event(event, { eventId: first.eventId, retryNum: 1 });
    await h.event(event, { eventId: first.eventId, retryNum: 2 });
    // Another replica's copy under a different event id: same team, channel and ts.
    await h.event(event, { eventId: 'EvOtherCopy' });
    await h.idle();
    expect(conversation.handled).toHaveLength(1);
    expect(h.fake.callsOf('chat.startStream')).toHaveLength(1);
  });

  it('ignores bots, its own messages, edits, deletions and joins', async () => {
    const root = nextTs();
    await h.event(mention('start', { ts: root }));
    await time.settle(h.fake.waitFor('chat.stopStream'));
    const inThread = { thread_ts: root };
    await h.event(message('from a bot', { ...inThread, bot_id: 'B9', subtype: 'bot_message' }));
    await h.event(message('from myself', { ...inThread, user: BOT_USER }));
    await h.event(message('edited', { ...inThread, subtype: 'message_changed' }));
    await h.event(message('', { ...inThread, subtype: 'message_deleted' }));
    await h.event(message('joined', { ...inThread, subtype: 'channel_join' }));
    await h.event(mention('a bot mentioning me', { bot_id: 'B9' }));
    await h.idle();
    expect(conversation.handled).toHaveLength(1);
  });
});
