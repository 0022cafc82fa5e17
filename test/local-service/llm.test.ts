import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/service/errors.js';
import { type Site, startSite } from './fixtures.js';
import { type Harness, readPieces, startHarness } from './helpers.js';

interface Seen {
  authorization?: string;
  body: {
    model: string;
    temperature: number;
    stream: boolean;
    messages: { role: string; content: string }[];
  };
}

/** A small fake of the chat-completions API: each test sets how the next answer goes. */
let behaviour: (res: ServerResponse) => void;
const seen: Seen[] = [];
const sse = (res: ServerResponse, events: unknown[], end = true) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  if (end) res.end('data: [DONE]\n\n');
};
const delta = (content: string, finish_reason: string | null = null) => ({
  choices: [{ delta: { content }, finish_reason }],
});

let site: Site;
let h: Harness;
beforeAll(async () => {
  site = await startSite({
    '/v1/chat/completions': (req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ authorization: req.headers.authorization, body: JSON.parse(body) });
        behaviour(res);
      });
    },
  });
  h = await startHarness({
    llm: { url: `${site.url}/v1`, model: 'fake-model', apiKey: 'sk-test-123' },
  });
});
afterAll(async () => {
  await h.close();
  await site.close();
});

async function bot() {
  const chatbot = await h.client.createChatbot({ name: 'LLM', show_citations: true });
  const source = await h.client.addQaSource(chatbot.uuid, {
    question: 'What colour is the sky?',
    answer: 'The sky is blue because air scatters blue light the most.',
  });
  const [general] = await h.client.listAgents(chatbot.uuid);
  await h.client.updateAgent(general!.uuid, { prompt: 'Speak like a sailor.', temperature: 0.6 });
  return { chatbot, source, session: await h.client.createSession(chatbot.uuid) };
}

describe('with a language model', () => {
  it('streams its deltas through, with its citations and the conversation', async () => {
    const { source, session } = await bot();
    behaviour = (res) =>
      sse(res, [
        delta('Ahoy! The sky '),
        delta('is blue [1.1].'),
        delta(' Fair winds [9.9].', 'stop'),
      ]);
    const pieces = await readPieces(
      await h.client.streamMessage(session.uuid, { query: 'What colour is the sky?' }),
    );
    const text = pieces.join('');
    expect(text).toBe('Ahoy! The sky is blue [1.1]. Fair winds [9.9].');
    const [message] = await h.client.listMessages(session.uuid);
    expect(message?.response).toBe(text);
    const cites = JSON.parse(message!.cite_data_json);
    expect(Object.keys(cites)).toEqual(['1.1']); // [9.9] was never offered
    expect(cites['1.1'].data_source_uuid).toBe(source.uuid);

    const call = seen[seen.length - 1]!;
    expect(call.authorization).toBe('Bearer sk-test-123');
    expect(call.body).toMatchObject({ model: 'fake-model', temperature: 0.6, stream: true });
    const all = call.body.messages.map((m) => m.content).join('\n');
    expect(all).toContain('Speak like a sailor.');
    expect(all).toContain('air scatters blue light');

    behaviour = (res) => sse(res, [delta('Aye.', 'length')]);
    await readPieces(await h.client.streamMessage(session.uuid, { query: 'Why is that?' }));
    const second = seen[seen.length - 1]!.body.messages;
    expect(second.map((m) => m.role)).toContain('assistant');
    expect(second.some((m) => m.role === 'assistant' && m.content === text)).toBe(true);
    const messages = await h.client.listMessages(session.uuid);
    expect(messages[1]?.finish_reason).toBe('length');
  });

  it('answers 502 and stores nothing when the model fails before writing', async () => {
    const { session } = await bot();
    behaviour = (res) =>
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
    await expect(
      h.client.streamMessage(session.uuid, { query: 'What colour is the sky?' }),
    ).rejects.toSatisfy(
      (e) => isServiceError(e) && e.status === 502 && !e.message.includes('sk-test-123'),
    );
    expect(await h.client.listMessages(session.uuid)).toEqual([]);
  });

  it('says in-band that the answer stopped when the model breaks mid-answer', async () => {
    const { session } = await bot();
    behaviour = (res) => {
      sse(res, [delta('The sky is ')], false);
      setImmediate(() => res.destroy());
    };
    const text = (
      await readPieces(
        await h.client.streamMessage(session.uuid, { query: 'What colour is the sky?' }),
      )
    ).join('');
    expect(text.startsWith('The sky is ')).toBe(true);
    expect(text).toMatch(/stopped early/);
    const [message] = await h.client.listMessages(session.uuid);
    expect(message).toMatchObject({ response: text, finish_reason: 'error' });
    expect(typeof message?.error_message).toBe('string');
  });
});
