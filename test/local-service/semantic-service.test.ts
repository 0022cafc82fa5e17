// The local service with EMBEDDINGS_URL, end to end through its HTTP interface: uploads are
// embedded after they are acknowledged (drain() awaits it), a paraphrase reaches the language
// model's passages, and an endpoint that is down costs neither the upload nor the answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Site, startSite } from './fixtures.js';
import { type Harness, readPieces, startHarness } from './helpers.js';
import { startFakeEmbeddings, type FakeEmbeddings } from './knowledge/fake-embeddings.js';

const KEY = 'sk-embeddings-service-31337';
const BRAKES = '# Brakes\n\nTo stop the car, press the brake pedal firmly with your right foot.\n';
const RADIO = '# Radio\n\nThe radio plays music while the ignition is on.\n';

let fake: FakeEmbeddings;
const lines: string[] = [];
const logger = pino(
  { level: 'warn' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  }),
);

async function upload(h: Harness, chatbot: string, name: string, text: string) {
  return h.client.uploadSource(chatbot, { file: new TextEncoder().encode(text), file_name: name });
}

async function ask(h: Harness, chatbot: string, query: string): Promise<string> {
  const session = await h.client.createSession(chatbot);
  return (await readPieces(await h.client.streamMessage(session.uuid, { query }))).join('');
}

beforeAll(async () => {
  fake = await startFakeEmbeddings();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
  lines.length = 0;
});

describe('the local service with embeddings, extractive', () => {
  let h: Harness;
  beforeAll(async () => {
    // No question here needs its embedding (down or silent, each is answered from bm25): a
    // short bound costs no margin, and the silent endpoint's wait is short.
    h = await startHarness({
      embeddings: { url: fake.url, model: 'fake-embed', apiKey: KEY, questionTimeoutMs: 50 },
      logger,
    });
  });
  afterAll(() => h.close());

  it('keeps an upload made while the endpoint is down, answers it by its words, and never logs the key', async () => {
    fake.mode = 'down';
    const bot = await h.client.createChatbot({ name: 'Down', show_citations: true });
    const source = await upload(h, bot.uuid, 'brakes.md', BRAKES);
    expect(source.status).toBe('success');
    await h.service.drain();
    expect(fake.requests.length).toBeGreaterThan(0); // it was tried
    const answer = await ask(h, bot.uuid, 'Which pedal stops the car?');
    expect(answer).toContain('press the brake pedal firmly');
    const log = lines.join('');
    expect(log).toContain('embedding a data source failed');
    expect(log).toContain('EMBEDDINGS_URL: answered HTTP 500');
    expect(log).not.toContain(KEY);
  });

  it('answers from bm25 when the question cannot be embedded in time', async () => {
    const bot = await h.client.createChatbot({ name: 'Slow', show_citations: true });
    await upload(h, bot.uuid, 'brakes.md', BRAKES);
    await h.service.drain();
    fake.mode = 'silent';
    const answer = await ask(h, bot.uuid, 'Which pedal stops the car?');
    expect(answer).toContain('press the brake pedal firmly');
    expect(lines.join('')).toContain('EMBEDDINGS_URL: no answer within 50 ms');
  });
});

describe('the local service with embeddings and a language model', () => {
  let h: Harness;
  let llm: Site;
  const prompts: string[] = [];
  beforeAll(async () => {
    llm = await startSite({
      '/v1/chat/completions': (req: IncomingMessage, res: ServerResponse) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          const { messages } = JSON.parse(body) as { messages: { content: string }[] };
          prompts.push(messages.map((m) => m.content).join('\n'));
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(
            `data: ${JSON.stringify({ choices: [{ delta: { content: 'Use the brake.' } }] })}\n\n`,
          );
          res.end('data: [DONE]\n\n');
        });
      },
    });
    h = await startHarness({
      llm: { url: `${llm.url}/v1`, model: 'fake-llm' },
      embeddings: { url: fake.url, model: 'fake-embed' },
      logger,
    });
  });
  afterAll(async () => {
    await h.close();
    await llm.close();
  });

  it("hands the model the section a paraphrase asks about, which shares none of the question's words", async () => {
    const bot = await h.client.createChatbot({ name: 'Car', show_citations: true });
    await upload(h, bot.uuid, 'radio.md', RADIO);
    await upload(h, bot.uuid, 'brakes.md', BRAKES);
    await h.service.drain();
    expect(fake.requests.flatMap((r) => r.inputs)).toHaveLength(2);
    await ask(h, bot.uuid, 'How can I halt my automobile?');
    expect(prompts.at(-1)).toContain('press the brake pedal firmly');

    fake.mode = 'down'; // the same question, the endpoint gone: bm25 alone finds nothing
    await ask(h, bot.uuid, 'How can I halt my automobile?');
    expect(prompts.at(-1)).not.toContain('press the brake pedal firmly');
  });
});
