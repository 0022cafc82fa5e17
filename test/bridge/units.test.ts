// The engine's parts alone, with their dependencies handed in: which chatbot and session a
// message goes to (sessions.ts), and how an answer ends (final-answer.ts).
import { describe, expect, it } from 'vitest';
import type { ChatbotDirectory } from '../../src/bridge/chatbots.js';
import { failedAnswer, readFinalAnswer, RESTART_NOTICE } from '../../src/bridge/final-answer.js';
import { ThreadSessions } from '../../src/bridge/sessions.js';
import type { ReplyTarget } from '../../src/bridge/types.js';
import { silentLogger } from '../../src/log.js';
import { ServiceError } from '../../src/service/errors.js';
import type { Chatbot, Message } from '../../src/service/types.js';
import { message } from './helpers/engine-setup.js';
import { chatbot, FakeClient } from './helpers/fake-client.js';
import { memoryState } from './helpers/memory-state.js';

const target = {} as ReplyTarget; // no earlierMessages: the question goes alone
const clock = { now: () => Date.parse('2024-05-01T00:00:00Z') };
const directory = (bots: Chatbot[]): Pick<ChatbotDirectory, 'get' | 'resolve'> => ({
  get: async (uuid) => bots.find((b) => b.uuid === uuid),
  resolve: async (ref) => bots.find((b) => b.uuid === ref || b.name === ref)?.uuid,
});

function sessions(defaultChatbot?: string) {
  const client = new FakeClient();
  const mem = memoryState();
  const deps = {
    client,
    state: mem.state,
    chatbots: directory(client.chatbots),
    clock,
    log: silentLogger,
    defaultChatbot,
  };
  return { client, mem, sessions: new ThreadSessions(deps) };
}

describe('ThreadSessions', () => {
  it('picks the channel binding, then the workspace one, then the default by name', async () => {
    const { mem, sessions: s } = sessions('bot bot-1');
    expect(await s.chatbotFor(message('hi'))).toBe('bot-1');
    mem.bindings.set('slack:T1', 'bot-ws');
    expect(await s.chatbotFor(message('hi'))).toBe('bot-ws');
    mem.bindings.set('slack:T1:C1', 'bot-ch');
    expect(await s.chatbotFor(message('hi'))).toBe('bot-ch');
    expect(await sessions().sessions.chatbotFor(message('hi'))).toBeUndefined();
  });

  it('opens a session once per thread, then reuses it', async () => {
    const { client, mem, sessions: s } = sessions();
    const signal = new AbortController().signal;
    const first = await s.send('k1', 'bot-1', message('one'), target, signal);
    const second = await s.send('k1', 'bot-1', message('two'), target, signal);
    expect(second.sessionUuid).toBe(first.sessionUuid);
    expect(client.sessions.size).toBe(1);
    expect(await mem.state.sessions.get('k1')).toMatchObject({
      sessionUuid: first.sessionUuid,
      chatbotUuid: 'bot-1',
      createdAt: '2024-05-01T00:00:00.000Z',
    });
  });

  it('replaces a stored session the service forgot, once, and resends the question', async () => {
    const { client, sessions: s } = sessions();
    const signal = new AbortController().signal;
    const first = await s.send('k1', 'bot-1', message('one'), target, signal);
    client.forget(first.sessionUuid);
    const again = await s.send('k1', 'bot-1', message('two'), target, signal);
    expect(again.sessionUuid).not.toBe(first.sessionUuid);
    expect(again.query).toBe('two');
  });
});

function stored(over: Partial<Message>): Message {
  return {
    uuid: 'msg-1',
    query: 'q',
    response: 'stored answer',
    created_at: '',
    modified_at: '',
    cite_data: {},
    ...over,
  } as Message;
}

describe('readFinalAnswer / failedAnswer', () => {
  const signal = new AbortController().signal;
  const base = { sessionUuid: 's', chatbotUuid: 'bot-1', query: 'q', streamed: 'streamed', signal };

  it('takes the stored text over the streamed one, and its uuid', async () => {
    const client = { listMessages: async () => [stored({})] };
    const deps = { client, state: memoryState().state, chatbots: directory([]), log: silentLogger };
    const read = await readFinalAnswer(deps, base);
    expect(read).toEqual({ answer: { text: 'stored answer', sources: [] }, messageUuid: 'msg-1' });
  });

  it('keeps the streamed text when the stored message cannot be read; an empty one is a notice', async () => {
    const failing = { listMessages: async () => Promise.reject(new Error('down')) };
    const deps = {
      client: failing,
      state: memoryState().state,
      chatbots: directory([]),
      log: silentLogger,
    };
    expect((await readFinalAnswer(deps, base)).answer.text).toBe('streamed');
    const empty = await readFinalAnswer(deps, { ...base, streamed: '  ' });
    expect(empty.answer.notice?.text).toBe('The chatbot sent no answer.');
  });

  it('says the bridge restarts on shutdown, else the notice of the failure, with the chatbot’s rate-limit text', async () => {
    const shutdown = new AbortController();
    const chatbots = directory([chatbot('bot-1', { rate_limit_message: 'Slow down, friend' })]);
    const error = new ServiceError('rate_limited', 'too many (429 on POST /x)');
    const args = {
      error,
      streamed: 'part',
      chatbotUuid: 'bot-1',
      signal,
      shutdown: shutdown.signal,
    };
    const limited = await failedAnswer({ chatbots }, args);
    expect(limited).toEqual({
      text: 'part',
      sources: [],
      notice: { kind: 'rate_limited', text: 'Slow down, friend' },
    });
    shutdown.abort();
    expect((await failedAnswer({ chatbots }, args)).notice).toBe(RESTART_NOTICE);
  });
});
