// The engine sends a thread's earlier messages with the first question asked in a thread it has
// never answered in, within the workspace's bounds, and never loses the question over them.
import { describe, expect, it } from 'vitest';
import type { EarlierMessage } from '../../src/bridge/types.js';
import { message, setupEngine } from './helpers/engine-setup.js';

const EARLIER: EarlierMessage[] = [
  { author: 'Ana', text: 'We should pick Lisbon for the offsite.', fromAssistant: false },
  { author: 'Ben', text: 'Agreed, Lisbon it is.', fromAssistant: false },
];
const WITH_CONTEXT = [
  'Earlier messages in this thread (oldest first):',
  'Ana: We should pick Lisbon for the offsite.',
  'Ben: Agreed, Lisbon it is.',
  '',
  'Question: what did we decide?',
].join('\n');

function threadWithHistory(setup: ReturnType<typeof setupEngine>, earlier = EARLIER) {
  const limits: number[] = [];
  const t = setup.target();
  t.earlierMessages = async (limit) => {
    limits.push(limit);
    return earlier.slice(-limit);
  };
  return { t, limits };
}

describe('thread context in the engine', () => {
  it('sends the earlier messages with the first question only, and finds the stored answer', async () => {
    const setup = setupEngine();
    const { client, conversation } = setup;
    // The stored message differs from the stream: the final text proves it was found by query.
    client.reply = (query) => ({ pieces: ['streamed'], response: `stored for ${query.length}` });
    const first = threadWithHistory(setup);
    await conversation.handle(message('what did we decide?'), first.t);
    const second = threadWithHistory(setup);
    await conversation.handle(message('and when?'), second.t);
    expect(client.streamCalls.map((c) => c.query)).toEqual([WITH_CONTEXT, 'and when?']);
    expect(first.limits).toEqual([20]);
    expect(second.limits).toEqual([]);
    expect(first.t.finalTexts).toEqual([`stored for ${WITH_CONTEXT.length}`]);
    expect(client.sessions.size).toBe(1);
  });

  it('follows the workspace setting: off sends the question alone, bounds are passed on', async () => {
    const setup = setupEngine();
    const { client, conversation, threadContext } = setup;
    threadContext.set('slack:T1', { enabled: false });
    const off = threadWithHistory(setup);
    await conversation.handle(message('what did we decide?', { thread: 'a' }), off.t);
    expect(off.limits).toEqual([]);

    threadContext.set('slack:T1', { enabled: true, maxMessages: 1, maxChars: 200 });
    const bounded = threadWithHistory(setup);
    await conversation.handle(message('what did we decide?', { thread: 'b' }), bounded.t);
    expect(bounded.limits).toEqual([1]);
    expect(client.streamCalls.map((c) => c.query)).toEqual([
      'what did we decide?',
      WITH_CONTEXT.replace('Ana: We should pick Lisbon for the offsite.\n', ''),
    ]);
  });

  it('answers the question alone when the thread cannot be read', async () => {
    const setup = setupEngine();
    const { client, conversation } = setup;
    const t = setup.target();
    t.earlierMessages = async () => {
      throw new Error('conversations.replies failed: missing_scope');
    };
    await conversation.handle(message('what did we decide?'), t);
    expect(client.streamCalls.map((c) => c.query)).toEqual(['what did we decide?']);
    expect(t.finalTexts).toEqual(['Answer to what did we decide?']);
  });

  it('reads no context after a reset, or where the adapter has no earlier messages', async () => {
    const setup = setupEngine();
    const { client, conversation } = setup;
    await conversation.handle(message('hello'), setup.target());
    await conversation.reset({ platform: 'slack', workspace: 'T1', channel: 'C1', thread: 'th1' });
    const afterReset = threadWithHistory(setup);
    await conversation.handle(message('what did we decide?'), afterReset.t);
    expect(afterReset.limits).toEqual([]);
    const empty = threadWithHistory(setup, []);
    await conversation.handle(message('what did we decide?', { thread: 'new' }), empty.t);
    expect(empty.limits).toEqual([20]);
    expect(client.streamCalls.map((c) => c.query)).toEqual([
      'hello',
      'what did we decide?',
      'what did we decide?',
    ]);
  });
});
