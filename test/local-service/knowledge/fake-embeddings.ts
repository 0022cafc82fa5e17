// A deterministic fake of an OpenAI-compatible embeddings endpoint, on loopback: each text is a
// hashed bag of its words' concepts, so texts that share concepts are near. A small synonym
// table stands for what a real model learns ("halt" and "stop" mean one thing), which is the
// point of semantic retrieval: a paraphrase that shares no word with the text it asks about.
// Each test sets how the next answers go (`mode`), and reads what was asked (`requests`).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_DIMENSIONS = 64;

const SYNONYMS: Record<string, string> = {
  halt: 'stop',
  halting: 'stop',
  stopping: 'stop',
  automobile: 'car',
  vehicle: 'car',
  motorcar: 'car',
  money: 'refund',
  reimbursement: 'refund',
};
const STOPWORDS = new Set(
  'a an and are can do does how i in is it my of on or the to what when where which why with you'.split(
    ' ',
  ),
);

/** FNV-1a: the same word always lands in the same dimension. */
function hash(word: string): number {
  let h = 0x811c9dc5;
  for (const char of word) h = Math.imul(h ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

export function fakeVector(text: string, dimensions = FAKE_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (STOPWORDS.has(raw)) continue;
    const word = raw.length > 3 ? raw.replace(/s$/, '') : raw;
    const concept = Object.hasOwn(SYNONYMS, word) ? SYNONYMS[word]! : word; // "constructor" too
    vector[hash(concept) % dimensions]! += 1;
  }
  return vector;
}

export type FakeMode =
  | 'ok'
  /** 500 with a body that quotes the key it was sent (a careless server). */
  | 'down'
  | 'not-json'
  /** Vectors one dimension longer than usual. */
  | 'other-dimensions'
  /** One vector fewer than asked. */
  | 'short'
  /** 20 MiB of JSON-looking numbers. */
  | 'huge'
  /** Never answers (until the connection is closed). */
  | 'silent';

export interface FakeEmbeddings {
  /** The API base to give as EMBEDDINGS_URL (…/v1). */
  url: string;
  mode: FakeMode;
  requests: { inputs: string[]; model: string; authorization?: string }[];
  close(): Promise<void>;
}

export async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  const fake: FakeEmbeddings = {
    url: '',
    mode: 'ok',
    requests: [],
    close: async () => undefined,
  };
  const answer = (req: IncomingMessage, res: ServerResponse, body: string) => {
    if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
      res.writeHead(404).end('not here');
      return;
    }
    const { input, model } = JSON.parse(body) as { input: string[]; model: string };
    const authorization = req.headers.authorization;
    fake.requests.push({ inputs: input, model, ...(authorization ? { authorization } : {}) });
    const json = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const dims = fake.mode === 'other-dimensions' ? FAKE_DIMENSIONS + 1 : FAKE_DIMENSIONS;
    const data = input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: fakeVector(text, dims),
    }));
    switch (fake.mode) {
      case 'ok':
      case 'other-dimensions':
        return json({ object: 'list', model, data });
      case 'short':
        return json({ object: 'list', model, data: data.slice(1) });
      case 'down':
        res.writeHead(500, { 'content-type': 'text/plain' });
        return res.end(`model crashed; request had ${authorization ?? 'no key'}`);
      case 'not-json':
        return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>gateway</html>');
      case 'huge': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const block = `${'0.123456789,'.repeat(1024 * 1024)}`; // 12 MiB a write
        res.write('{"data":[{"embedding":[');
        res.write(block);
        res.end(block);
        return;
      }
      case 'silent':
        return; // the client's deadline must end it
    }
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
