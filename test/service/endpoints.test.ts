import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/service/api.js';
import { API_KEY, clientFor, sendJson, useFakeService } from './fake-service.js';

const service = useFakeService();
let client: ServiceClient;

beforeAll(() => {
  client = clientFor(service);
});
afterAll(() => client.close());

const chatbot = {
  uuid: 'cb1',
  name: 'Helper',
  created_at: 't0',
  modified_at: 't1',
  meta: {
    rate_limit: [20, 240],
    rate_limit_message: 'slow down',
    show_citations: 1,
    visibility: 'private',
  },
};
const agent = {
  uuid: 'ag1',
  name: 'General Q&A',
  description: '',
  prompt: '',
  type: 'user-facing',
  enabled: 0,
  meta: { model: 'gpt-4o-mini-4k', temperature: 0.2 },
  data_source_uuids: [],
  tool_functions: [],
  variables: [],
};
const source = { uuid: 'ds1', title: 'FAQ', type: 'qa', status: 'success', meta_json: '' };
const tag = { uuid: 'tg1', name: 'docs', color: '#aabbcc', data_source_uuids: ['ds1'] };
const session = {
  uuid: 'se1',
  created_at: 't',
  modified_at: 't',
  initial_variables: { platform: 'slack' },
};
const message = {
  uuid: 'm1',
  query: 'q',
  response: 'a',
  cite_data_json: '{}',
  finish_reason: 'stop',
  meta_json: '',
};

interface Case {
  name: string;
  call: () => Promise<unknown>;
  method: string;
  path: string;
  body?: unknown;
  reply: unknown;
  check: (result: unknown) => void;
}

const cases: Case[] = [
  {
    name: 'createChatbot',
    call: () =>
      client.createChatbot({ name: 'Helper', visibility: 'private', rate_limit: [20, 240] }),
    method: 'POST',
    path: '/api/v1/chatbot/create',
    body: { name: 'Helper', visibility: 'private', rate_limit: [20, 240] },
    reply: chatbot,
    check: (r) =>
      expect(r).toMatchObject({
        uuid: 'cb1',
        meta: { show_citations: true, rate_limit: [20, 240] },
      }),
  },
  {
    name: 'listChatbots',
    call: () => client.listChatbots(),
    method: 'GET',
    path: '/api/v1/chatbots',
    reply: [chatbot, chatbot],
    check: (r) => expect(r).toHaveLength(2),
  },
  {
    name: 'listAgents',
    call: () => client.listAgents('cb1'),
    method: 'GET',
    path: '/api/v1/chatbot/cb1/agents',
    reply: [agent],
    check: (r) => expect(r).toMatchObject([{ uuid: 'ag1', enabled: false }]),
  },
  {
    name: 'createAgent',
    call: () => client.createAgent('cb1', { name: 'Bot', type: 'background', meta: { tags: [] } }),
    method: 'POST',
    path: '/api/v1/chatbot/cb1/agent/create',
    body: { name: 'Bot', type: 'background', meta: { tags: [] } },
    reply: agent,
    check: (r) => expect(r).toMatchObject({ uuid: 'ag1', enabled: false, variables: [] }),
  },
  {
    name: 'updateAgent',
    call: () => client.updateAgent('ag1', { enabled: true, model: 'gpt-4o-8k' }),
    method: 'POST',
    path: '/api/v1/agent/ag1/update',
    body: { enabled: true, model: 'gpt-4o-8k' },
    reply: { ...agent, enabled: 1 },
    check: (r) => expect(r).toMatchObject({ enabled: true }),
  },
  {
    name: 'addQaSource',
    call: () => client.addQaSource('cb1', { question: 'Q?', answer: 'A.' }),
    method: 'POST',
    path: '/api/v1/chatbot/cb1/data-source/qa',
    body: { question: 'Q?', answer: 'A.' },
    reply: source,
    check: (r) => expect(r).toMatchObject({ uuid: 'ds1', state: 'ready', meta: {} }),
  },
  {
    name: 'addUrlSource',
    call: () => client.addUrlSource('cb1', { url: 'https://example.com/a' }),
    method: 'POST',
    path: '/api/v1/chatbot/cb1/data-source/url',
    body: { url: 'https://example.com/a' },
    reply: { ...source, type: 'link', status: 'await' },
    check: (r) => expect(r).toMatchObject({ state: 'pending', status: 'await' }),
  },
  {
    name: 'renameSource',
    call: () => client.renameSource('ds1', { title: 'New' }),
    method: 'POST',
    path: '/api/v1/data-source/ds1/update',
    body: { title: 'New' },
    reply: { ...source, title: 'New' },
    check: (r) => expect(r).toMatchObject({ title: 'New' }),
  },
  {
    name: 'listSourceTags',
    call: () => client.listSourceTags('cb1'),
    method: 'GET',
    path: '/api/v1/chatbot/cb1/source-tags',
    reply: [tag],
    check: (r) => expect(r).toMatchObject([{ uuid: 'tg1', data_source_uuids: ['ds1'] }]),
  },
  {
    name: 'createSourceTag',
    call: () => client.createSourceTag('cb1', { name: 'docs', color: '#aabbcc' }),
    method: 'POST',
    path: '/api/v1/chatbot/cb1/source-tag/create',
    body: { name: 'docs', color: '#aabbcc' },
    reply: tag,
    check: (r) => expect(r).toMatchObject({ uuid: 'tg1' }),
  },
  {
    name: 'updateSourceTag',
    call: () => client.updateSourceTag('tg1', { data_source_uuids: [] }),
    method: 'POST',
    path: '/api/v1/source-tag/tg1/update',
    body: { data_source_uuids: [] },
    reply: { ...tag, data_source_uuids: [] },
    check: (r) => expect(r).toMatchObject({ data_source_uuids: [] }),
  },
  {
    name: 'createSession',
    call: () => client.createSession('cb1', { initial_variables: { platform: 'slack' } }),
    method: 'POST',
    path: '/api/v1/chatbot/cb1/session/create',
    body: { initial_variables: { platform: 'slack' } },
    reply: session,
    check: (r) =>
      expect(r).toMatchObject({ uuid: 'se1', initial_variables: { platform: 'slack' } }),
  },
  {
    name: 'createSession without input',
    call: () => client.createSession('cb1'),
    method: 'POST',
    path: '/api/v1/chatbot/cb1/session/create',
    body: {},
    reply: { uuid: 'se2', created_at: 't', modified_at: 't' },
    check: (r) => expect(r).not.toHaveProperty('initial_variables'),
  },
  {
    name: 'listMessages',
    call: () => client.listMessages('se1'),
    method: 'GET',
    path: '/api/v1/session/se1/messages',
    reply: [message],
    check: (r) => expect(r).toMatchObject([{ uuid: 'm1', cite_data: {}, finish_reason: 'stop' }]),
  },
];

describe('each endpoint sends the documented request and maps the response', () => {
  for (const c of cases) {
    it(c.name, async () => {
      service.handle((_req, res) => sendJson(res, 200, c.reply));
      const result = await c.call();
      expect(service.requests).toHaveLength(1);
      const req = service.requests[0]!;
      expect(req.method).toBe(c.method);
      expect(req.url).toBe(c.path);
      expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(req.headers.accept).toBe('application/json');
      if (c.body === undefined) {
        expect(req.body.length).toBe(0);
        expect(req.headers['content-type']).toBeUndefined();
      } else {
        expect(req.headers['content-type']).toBe('application/json');
        expect(req.json).toEqual(c.body);
      }
      c.check(result);
    });
  }
});

describe('paths', () => {
  it('URL-encodes ids and tolerates a trailing slash or /api/v1 on the base', async () => {
    service.handle((_req, res) => sendJson(res, 200, []));
    const slash = clientFor(service, { baseUrl: `${service.url}/` });
    const suffixed = clientFor(service, { baseUrl: `${service.url}/api/v1/` });
    await slash.listAgents('a%b&c');
    await suffixed.listMessages('x:y');
    expect(service.requests.map((r) => r.url)).toEqual([
      '/api/v1/chatbot/a%25b%26c/agents',
      '/api/v1/session/x%3Ay/messages',
    ]);
    await Promise.all([slash.close(), suffixed.close()]);
  });

  it('keeps a path prefix of a reverse proxy', async () => {
    service.handle((_req, res) => sendJson(res, 200, []));
    const proxied = clientFor(service, { baseUrl: `${service.url}/gpt` });
    await proxied.listChatbots();
    expect(service.requests[0]!.url).toBe('/gpt/api/v1/chatbots');
    await proxied.close();
  });
});

describe('uploadSource', () => {
  it('sends multipart/form-data with the file and meta_json', async () => {
    service.handle((_req, res) =>
      sendJson(res, 200, { ...source, type: 'file', status: 'queued' }),
    );
    const bytes = new TextEncoder().encode('# Title\nbody é\n');
    const result = await client.uploadSource('cb1', {
      file: bytes,
      file_name: 'notes.md',
      content_type: 'text/markdown',
      reference_source_link: 'https://example.com/notes',
      meta: { team: 'docs' },
    });
    expect(result.state).toBe('pending');
    const req = service.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/api/v1/chatbot/cb1/data-source/upload');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const contentType = String(req.headers['content-type']);
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    // Parse the form with the platform's own multipart parser.
    const form = await new Response(new Uint8Array(req.body), {
      headers: { 'content-type': contentType },
    }).formData();
    const file = form.get('file') as File;
    expect(file.name).toBe('notes.md');
    expect(file.type).toBe('text/markdown');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    expect(JSON.parse(String(form.get('meta_json')))).toEqual({
      team: 'docs',
      reference_source_link: 'https://example.com/notes',
    });
    expect([...form.keys()].sort()).toEqual(['file', 'meta_json']);
  });

  it('sends meta_json as "{}" when there is no link or meta', async () => {
    service.handle((_req, res) => sendJson(res, 200, source));
    await client.uploadSource('cb1', { file: new Blob(['a,b\n1,2\n']), file_name: 'data.csv' });
    const req = service.requests[0]!;
    const form = await new Response(new Uint8Array(req.body), {
      headers: { 'content-type': String(req.headers['content-type']) },
    }).formData();
    expect(form.get('meta_json')).toBe('{}');
    expect((form.get('file') as File).type).toBe('application/octet-stream');
  });
});

describe('stream request', () => {
  it('posts the query and accepts any content type', async () => {
    service.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"not": "parsed"}');
    });
    const stream = await client.streamMessage('se1', { query: 'Hi there' });
    let text = '';
    for await (const piece of stream) text += piece;
    expect(text).toBe('{"not": "parsed"}');
    const req = service.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/api/v1/session/se1/message/stream');
    expect(req.json).toEqual({ query: 'Hi there' });
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });
});
