import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  citedIn,
  streamLlmAnswer,
  type Passage,
} from '../../../src/local-service/knowledge/index.js';

interface Seen {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    stream: boolean;
    temperature: number;
    messages: { role: string; content: string }[];
  };
}

const API_KEY = 'sk-test-secret-123';
let server: Server;
let base = '';
const seen: Seen[] = [];
let respond: (res: ServerResponse) => Promise<void>;

/** Writes raw pieces one after another, each its own write (so frames split anywhere). */
async function writeAll(res: ServerResponse, pieces: (string | Buffer)[]) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const piece of pieces) {
    await new Promise<void>((resolve) => res.write(piece, () => resolve()));
  }
  res.end();
}

const event = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
      seen.push({ headers: req.headers, body: JSON.parse(raw) });
      void respond(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const PASSAGES: Passage[] = [
  {
    sourceUuid: 'a',
    title: 'Install guide',
    fileName: 'install.md',
    type: 'upload',
    chunkIndex: 2,
    text: 'Run npm install.',
    score: 3,
  },
  {
    sourceUuid: 'b',
    title: 'FAQ',
    fileName: '',
    type: 'url',
    link: 'https://x.test/faq',
    chunkIndex: 0,
    text: 'Node 20 needed.',
    score: 2,
  },
];

const input = (citations: boolean) => ({
  prompt: 'You are the chatbridge helper.',
  temperature: 0.3,
  query: 'How do I install it?',
  passages: PASSAGES,
  history: [{ query: 'What is chatbridge?', response: 'A bridge.' }],
  citations,
});

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of iterable) pieces.push(piece);
  return pieces;
}

describe('streamLlmAnswer', () => {
  it('streams deltas parsed from SSE split across writes (mid-line, mid-character)', async () => {
    const stream =
      event('Run ') +
      event('npm install [1.3]') +
      ': keep-alive\n\n' +
      event(' — café', 'stop') +
      'data: [DONE]\n\n';
    const bytes = Buffer.from(stream);
    const cut = bytes.indexOf(Buffer.from('é')) + 1; // inside the two bytes of "é"
    respond = (res) =>
      writeAll(res, [
        bytes.subarray(0, 7),
        bytes.subarray(7, 40),
        bytes.subarray(40, cut),
        bytes.subarray(cut),
      ]);

    const answer = streamLlmAnswer({ url: base, model: 'gpt-test', apiKey: API_KEY }, input(true));
    const pieces = await collect(answer);
    expect(pieces).toEqual(['Run ', 'npm install [1.3]', ' — café']);
    expect(answer.finishReason).toBe('stop');
    expect(Object.keys(answer.citeData)).toEqual(['1.3', '2.1']);
    expect(answer.citeData['2.1']).toEqual({
      data_source_uuid: 'b',
      title: 'FAQ',
      text: 'Node 20 needed.',
      file_name: '',
      type: 'url',
      link: 'https://x.test/faq',
    });
    expect(Object.keys(citedIn(pieces.join(''), answer.citeData))).toEqual(['1.3']);

    const request = seen.at(-1)!;
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.body).toMatchObject({ model: 'gpt-test', stream: true, temperature: 0.3 });
    const roles = request.body.messages.map((m) => m.role);
    expect(roles).toEqual(['system', 'system', 'user', 'assistant', 'user']);
    expect(request.body.messages[0]!.content).toMatch(
      /^You are the chatbridge helper\.\n\n.*\[1\.2\]/s,
    );
    expect(request.body.messages[1]!.content).toContain(
      '[1.3] From "Install guide":\nRun npm install.',
    );
    expect(request.body.messages[1]!.content).toContain('[2.1] From "FAQ":\nNode 20 needed.');
    expect(request.body.messages.at(-1)!.content).toBe('How do I install it?');
  });

  it('offers no markers and no citeData without citations; reports finish_reason length', async () => {
    respond = (res) =>
      writeAll(res, [
        'data: {"choices":[{"delta":{"content":"Partial"},"finish_reason":"length"}]}\r\n\r\n',
      ]);
    const answer = streamLlmAnswer({ url: base, model: 'm' }, input(false));
    expect(await collect(answer)).toEqual(['Partial']);
    expect(answer.finishReason).toBe('length');
    expect(answer.citeData).toEqual({});
    const request = seen.at(-1)!;
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body.messages[1]!.content).not.toMatch(/\[\d+\.\d+\]/);
  });

  it('fails clearly on an HTTP error, without echoing the API key', async () => {
    respond = async (res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${API_KEY}` } }));
    };
    const answer = streamLlmAnswer({ url: base, model: 'm', apiKey: API_KEY }, input(true));
    const error = (await collect(answer).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /^language model answered HTTP 401: .*Incorrect API key provided: \*\*\*/,
    );
    expect(error.message).not.toContain(API_KEY);
  });

  it('surfaces an error event sent inside the stream', async () => {
    respond = (res) => writeAll(res, [event('Hi'), 'data: {"error":{"message":"overloaded"}}\n\n']);
    const pieces: string[] = [];
    const error = await (async () => {
      for await (const piece of streamLlmAnswer({ url: base, model: 'm' }, input(true)))
        pieces.push(piece);
    })().catch((e: unknown) => e);
    expect(pieces).toEqual(['Hi']);
    expect((error as Error).message).toBe('language model error: overloaded');
  });
});

describe('streamLlmAnswer timeouts', () => {
  const input = {
    prompt: '',
    temperature: 0,
    query: 'How do I install it?',
    passages: PASSAGES,
    history: [],
    citations: false,
  };
  const drain = async (answer: AsyncIterable<string>) => {
    const pieces: string[] = [];
    for await (const piece of answer) pieces.push(piece);
    return pieces;
  };

  it('gives up when the endpoint sends nothing before the first-byte timeout', async () => {
    respond = async () => undefined; // accepts the request, never answers
    const answer = streamLlmAnswer(
      { url: base, model: 'm', firstByteTimeoutMs: 50, idleTimeoutMs: 10_000 },
      input,
    );
    await expect(drain(answer)).rejects.toThrow('language model sent nothing within 50 ms');
  });

  it('gives up when the endpoint goes silent mid-answer (idle timeout)', async () => {
    respond = async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event('Run npm install.'));
      // …and then nothing, with the connection left open
    };
    const pieces: string[] = [];
    const answer = streamLlmAnswer(
      { url: base, model: 'm', firstByteTimeoutMs: 10_000, idleTimeoutMs: 60 },
      input,
    );
    await expect(
      (async () => {
        for await (const piece of answer) pieces.push(piece);
      })(),
    ).rejects.toThrow('language model went silent for 60 ms mid-answer');
    expect(pieces).toEqual(['Run npm install.']);
  });
});
