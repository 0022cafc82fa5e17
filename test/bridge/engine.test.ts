import { describe, expect, it } from 'vitest';
import { NOT_CONFIGURED_TEXT } from '../../src/bridge/notices.js';
import { message, setupEngine } from './helpers/engine-setup.js';
import { chatbot, ScriptedStream } from './helpers/fake-client.js';
import type { RecordingTarget } from './helpers/recording-target.js';

const span = (t: RecordingTarget) => {
  const seqs = t.calls.filter((c) => c.kind !== 'working').map((c) => c.seq!);
  return [Math.min(...seqs), Math.max(...seqs)] as const;
};

describe('ordering', () => {
  it('answers 20 quick messages in one thread in arrival order, one at a time', async () => {
    const { clock, client, conversation, target, streamOverTime } = setupEngine();
    streamOverTime((q) => [`Answer `, `to `, q], 300);
    const targets = Array.from({ length: 20 }, () => target());
    const done = Promise.all(targets.map((t, i) => conversation.handle(message(`q${i}`), t)));
    await clock.runUntil(done, 200);

    expect(client.streamCalls.map((c) => c.query)).toEqual(targets.map((_, i) => `q${i}`));
    expect(new Set(client.streamCalls.map((c) => c.sessionUuid)).size).toBe(1);
    targets.forEach((t, i) => {
      expect(t.finalTexts).toEqual([`Answer to q${i}`]);
      expect(t.messages[0]!.finishCount).toBe(1);
    });
    for (let i = 1; i < targets.length; i++) {
      expect(span(targets[i - 1]!)[1]).toBeLessThan(span(targets[i]!)[0]);
    }
  });

  it('runs different threads in parallel', async () => {
    const { clock, conversation, target, streamOverTime } = setupEngine();
    streamOverTime(() => ['one ', 'two ', 'three ', 'four'], 1000);
    const targets = Array.from({ length: 5 }, () => target());
    const done = Promise.all(
      targets.map((t, i) => conversation.handle(message('hi', { thread: `th${i}` }), t)),
    );
    await clock.advance(1500);
    // Every thread shows its first words before any answer is over.
    expect(targets.every((t) => t.messages.length === 1 && !t.messages[0]!.final)).toBe(true);
    await clock.runUntil(done);
    expect(targets.every((t) => t.finalTexts[0] === 'one two three four')).toBe(true);
  });

  it('bounds concurrent streams and queues the rest', async () => {
    const { clock, client, conversation, target } = setupEngine({ maxConcurrentStreams: 2 });
    const streams: ScriptedStream[] = [];
    client.onStream = () => {
      const s = new ScriptedStream();
      streams.push(s);
      return s;
    };
    const done = Promise.all(
      [0, 1, 2, 3].map((i) => conversation.handle(message('hi', { thread: `th${i}` }), target())),
    );
    await clock.advance(10);
    expect(client.streamCalls).toHaveLength(2);
    streams[0]!.end({ response: 'done' });
    await clock.advance(10);
    expect(client.streamCalls).toHaveLength(3);
    streams.slice(1).forEach((s) => s.end({ response: 'done' }));
    await clock.advance(10);
    streams.slice(3).forEach((s) => s.end({ response: 'done' }));
    await clock.runUntil(done);
    expect(client.streamCalls).toHaveLength(4);
  });
});

describe('chatbot and session', () => {
  it('reuses the thread session and passes flat initial variables', async () => {
    const { client, conversation, target, sessions } = setupEngine();
    await conversation.handle(message('first'), target());
    await conversation.handle(message('second'), target());
    expect(client.sessions.size).toBe(1);
    const [uuid, session] = [...client.sessions.entries()][0]!;
    expect(session.variables).toEqual({
      platform: 'slack',
      user_name: 'ada',
      user_id: 'U1',
      channel_name: 'general',
    });
    expect(sessions.get('slack:T1:C1:th1')).toMatchObject({
      sessionUuid: uuid,
      chatbotUuid: 'bot-1',
    });
    expect(client.streamCalls.map((c) => c.sessionUuid)).toEqual([uuid, uuid]);
  });

  it('prefers the channel binding, then the workspace, then the default (by name too)', async () => {
    const { client, conversation, target, bindings } = setupEngine({ defaultChatbot: 'bot bot-3' });
    client.chatbots.push(chatbot('bot-2'), chatbot('bot-3'));
    bindings.set('slack:T1:C9', 'bot-2');
    await conversation.handle(message('a', { channel: 'C9', thread: 'x' }), target());
    await conversation.handle(message('b', { channel: 'C1', thread: 'y' }), target());
    await conversation.handle(message('c', { workspace: 'T2', thread: 'z' }), target());
    const bots = client.streamCalls.map((c) => client.sessions.get(c.sessionUuid)!.chatbotUuid);
    expect(bots).toEqual(['bot-2', 'bot-1', 'bot-3']);
  });

  it('picks by the binding channel when the message names one (an assistant pane)', async () => {
    const { client, conversation, target, bindings, sessions } = setupEngine();
    client.chatbots.push(chatbot('bot-2'));
    bindings.set('slack:T1:C9', 'bot-2');
    // Written in a DM (D1) while viewing C9: C9's chatbot answers, in the DM thread's session.
    await conversation.handle(
      message('a', { channel: 'D1', thread: 'p', bindingChannel: 'C9' }),
      target(),
    );
    // Viewing a channel with no binding of its own: the workspace's chatbot.
    await conversation.handle(
      message('b', { channel: 'D1', thread: 'q', bindingChannel: 'C5' }),
      target(),
    );
    const bots = client.streamCalls.map((c) => client.sessions.get(c.sessionUuid)!.chatbotUuid);
    expect(bots).toEqual(['bot-2', 'bot-1']);
    expect(sessions.get('slack:T1:D1:p')).toMatchObject({ chatbotUuid: 'bot-2' });
  });

  it('explains how to bind a chatbot when none is set up', async () => {
    const { client, conversation, target } = setupEngine();
    const t = target();
    await conversation.handle(message('hello', { workspace: 'T9' }), t);
    expect(client.sessions.size).toBe(0);
    expect(t.messages).toHaveLength(1);
    expect(t.lastFinal).toEqual({
      text: '',
      sources: [],
      notice: { kind: 'not_configured', text: NOT_CONFIGURED_TEXT },
    });
    expect(NOT_CONFIGURED_TEXT).toContain('chatbot use');
    expect(t.callsOf('stopWorking')).toHaveLength(1);
  });

  it('opens a new session when the binding changed chatbot', async () => {
    const { client, conversation, target, bindings } = setupEngine();
    client.chatbots.push(chatbot('bot-2'));
    await conversation.handle(message('a'), target());
    bindings.set('slack:T1', 'bot-2');
    await conversation.handle(message('b'), target());
    const [s1, s2] = client.streamCalls.map((c) => c.sessionUuid);
    expect(s1).not.toBe(s2);
    expect(client.sessions.get(s2!)!.chatbotUuid).toBe('bot-2');
  });

  it('replaces a session the service no longer knows, once, and re-sends the question', async () => {
    const { client, conversation, target } = setupEngine();
    await conversation.handle(message('a'), target());
    client.forget(client.streamCalls[0]!.sessionUuid);
    const t = target();
    await conversation.handle(message('b'), t);
    expect(client.streamCalls.map((c) => c.query)).toEqual(['a', 'b', 'b']);
    expect(client.streamCalls[2]!.sessionUuid).not.toBe(client.streamCalls[0]!.sessionUuid);
    expect(t.finalTexts).toEqual(['Answer to b']);
  });

  it('does not loop when a brand-new session is unknown too', async () => {
    const { client, conversation, target } = setupEngine();
    const original = client.streamMessage.bind(client);
    let calls = 0;
    client.streamMessage = async (uuid, input) => {
      calls += 1;
      client.forget(uuid);
      return original(uuid, input);
    };
    const t = target();
    await conversation.handle(message('a'), t);
    expect(calls).toBe(1);
    expect(t.lastFinal?.notice?.kind).toBe('error');
  });

  it('reset starts a new session on the next message, and the thread stays known', async () => {
    const { conversation, target, client, sessions } = setupEngine();
    const thread = { platform: 'slack', workspace: 'T1', channel: 'C1', thread: 'th1' };
    expect(await conversation.hasSession(thread)).toBe(false);
    await conversation.handle(message('a'), target());
    await conversation.handle(message('b'), target());
    expect(await conversation.hasSession(thread)).toBe(true);
    await conversation.reset(thread);
    // Still known: un-mentioned follow-ups in this thread must still be answered.
    expect(await conversation.hasSession(thread)).toBe(true);
    expect(sessions.get('slack:T1:C1:th1')?.sessionUuid).toBe('');
    const t = target();
    await conversation.handle(message('c'), t);
    await conversation.handle(message('d'), target());
    const [s1, s2, s3, s4] = client.streamCalls.map((call) => call.sessionUuid);
    expect(s2).toBe(s1);
    expect(s3).not.toBe(s1);
    expect(s4).toBe(s3);
    expect(client.sessions.size).toBe(2);
    expect(t.finalTexts).toEqual(['Answer to c']);
    expect(sessions.get('slack:T1:C1:th1')).toMatchObject({ sessionUuid: s3 });
    expect(sessions.get('slack:T1:C1:th1')?.resetAt).toBeUndefined();
  });

  it('reset waits its turn: messages queued before it finish in the old session', async () => {
    const { clock, conversation, target, client } = setupEngine();
    const thread = { platform: 'slack', workspace: 'T1', channel: 'C1', thread: 'th1' };
    const held = new ScriptedStream();
    client.onStream = (call) => (call.query === 'a' ? held : undefined);
    const first = conversation.handle(message('a'), target());
    await clock.advance(10);
    const second = conversation.handle(message('b'), target());
    const reset = conversation.reset(thread);
    const third = conversation.handle(message('c'), target());
    held.end({ response: 'done' });
    await clock.runUntil(Promise.all([first, second, reset, third]));
    const [a, b, c] = client.streamCalls.map((call) => call.sessionUuid);
    expect(client.streamCalls.map((call) => call.query)).toEqual(['a', 'b', 'c']);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it('reset of a thread that never had a session leaves it unknown', async () => {
    const { conversation, client } = setupEngine();
    const thread = { platform: 'slack', workspace: 'T1', channel: 'C1', thread: 'never' };
    await conversation.reset(thread);
    expect(await conversation.hasSession(thread)).toBe(false);
    expect(client.sessions.size).toBe(0);
  });
});
