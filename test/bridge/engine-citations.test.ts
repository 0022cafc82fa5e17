import { describe, expect, it } from 'vitest';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import type { CiteEntry } from '../../src/service/types.js';
import { message, setupEngine } from './helpers/engine-setup.js';
import { chatbot } from './helpers/fake-client.js';

const entry = (uuid: string, extra: Partial<CiteEntry> = {}): CiteEntry => ({
  data_source_uuid: uuid,
  title: `Doc ${uuid}`,
  text: 'passage',
  file_name: '',
  type: 'url',
  ...extra,
});

function citedAnswer() {
  const env = setupEngine();
  env.sources.set('ds-b', {
    uuid: 'ds-b',
    chatbotUuid: 'bot-1',
    title: 'Handbook',
    type: 'upload',
    link: 'https://intranet.example/handbook',
    createdAt: '',
  });
  env.client.reply = () => ({
    pieces: ['Refunds take 5 days [2.1]', '. Ask support [1.3][9.9].'],
    citeData: {
      '2.1': entry('ds-a', { link: 'https://docs.example/refunds' }),
      '1.3': entry('ds-b', { title: '' }),
    },
  });
  return env;
}

describe('citations through the engine', () => {
  it('maps markers to numbered sources with links on the last message', async () => {
    const env = citedAnswer();
    const t = env.target();
    await env.conversation.handle(message('refunds?'), t);
    expect(t.lastFinal).toEqual({
      text: 'Refunds take 5 days [1]. Ask support [2].',
      sources: [
        {
          number: 1,
          title: 'Doc ds-a',
          link: 'https://docs.example/refunds',
          dataSourceUuid: 'ds-a',
        },
        {
          number: 2,
          title: 'Handbook',
          link: 'https://intranet.example/handbook',
          dataSourceUuid: 'ds-b',
        },
      ],
    });
  });

  it('shows no sources and no markers when the chatbot has citations off', async () => {
    const env = citedAnswer();
    env.client.chatbots = [chatbot('bot-1', { show_citations: false })];
    const t = env.target();
    await env.conversation.handle(message('refunds?'), t);
    expect(t.lastFinal).toEqual({ text: 'Refunds take 5 days. Ask support.', sources: [] });
  });

  it('caches chatbot settings between answers', async () => {
    const env = citedAnswer();
    await env.conversation.handle(message('a'), env.target());
    await env.conversation.handle(message('b'), env.target());
    expect(env.client.listChatbotsCalls).toBe(1);
    await env.clock.advance(60_000);
    await env.conversation.handle(message('c'), env.target());
    expect(env.client.listChatbotsCalls).toBe(2);
  });

  it('takes the stored response of this query as the final text', async () => {
    const env = setupEngine();
    env.client.reply = (q) => ({ pieces: ['streamed draft'], response: `Stored answer to ${q}` });
    const t = env.target();
    await env.conversation.handle(message('same'), env.target());
    await env.conversation.handle(message('same'), t);
    expect(t.finalTexts).toEqual(['Stored answer to same']);
    const session = [...env.client.sessions.values()][0]!;
    expect(session.messages).toHaveLength(2);
  });

  it('opens the first message after a SurfaceRateLimitError with the latest text', async () => {
    const env = setupEngine();
    env.streamOverTime(() => ['Hello', ' there', ' friend'], 400);
    const t = env.target();
    t.failNext('open', new SurfaceRateLimitError(1000));
    const done = env.conversation.handle(message('q'), t);
    await env.clock.runUntil(done, 50);
    const opens = t.callsOf('open');
    expect(opens.map((o) => [o.at, o.text, !!o.failed])).toEqual([
      [400, 'Hello', true],
      [1400, 'Hello there friend', false],
    ]);
    expect(t.finalTexts).toEqual(['Hello there friend']);
  });
});
