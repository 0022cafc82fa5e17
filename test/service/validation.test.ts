import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/service/api.js';
import { createServiceClient } from '../../src/service/client.js';
import { ServiceError } from '../../src/service/errors.js';
import { API_KEY, clientFor, sendJson, useFakeService } from './fake-service.js';

const service = useFakeService((_req, res) => sendJson(res, 200, {}));
let client: ServiceClient;

beforeAll(() => {
  client = clientFor(service);
});
afterAll(() => client.close());

// Inputs are typed; tests send what a careless caller (or JSON from a user) might.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const bad = (value: unknown): any => value;
const file = new Uint8Array([1, 2, 3]);

const cases: Array<[string, () => Promise<unknown>, string]> = [
  ['chatbot name missing', () => client.createChatbot(bad({})), 'name'],
  ['chatbot name blank', () => client.createChatbot({ name: '  ' }), 'name'],
  [
    'visibility',
    () => client.createChatbot(bad({ name: 'a', visibility: 'secret' })),
    'visibility',
  ],
  [
    'rate_limit shape',
    () => client.createChatbot(bad({ name: 'a', rate_limit: [5] })),
    'rate_limit',
  ],
  [
    'rate_limit count 0',
    () => client.createChatbot({ name: 'a', rate_limit: [0, 10] }),
    'rate_limit[0] (messages)',
  ],
  [
    'rate_limit count 101',
    () => client.createChatbot({ name: 'a', rate_limit: [101, 10] }),
    'rate_limit[0] (messages)',
  ],
  [
    'rate_limit count 1.5',
    () => client.createChatbot({ name: 'a', rate_limit: [1.5, 10] }),
    'rate_limit[0] (messages)',
  ],
  [
    'rate_limit window 0',
    () => client.createChatbot({ name: 'a', rate_limit: [5, 0] }),
    'rate_limit[1] (seconds)',
  ],
  [
    'rate_limit window 361',
    () => client.createChatbot({ name: 'a', rate_limit: [5, 361] }),
    'rate_limit[1] (seconds)',
  ],
  [
    'rate_limit_message',
    () => client.createChatbot(bad({ name: 'a', rate_limit_message: 3 })),
    'rate_limit_message',
  ],
  [
    'rate_limit_message empty',
    () => client.createChatbot({ name: 'a', rate_limit_message: '' }),
    'rate_limit_message',
  ],
  [
    'show_citations',
    () => client.createChatbot(bad({ name: 'a', show_citations: 1 })),
    'show_citations',
  ],
  ['agent name', () => client.createAgent('cb', bad({ type: 'background' })), 'name'],
  ['agent type', () => client.createAgent('cb', bad({ name: 'a', type: 'chatty' })), 'type'],
  [
    'temperature > 1',
    () => client.createAgent('cb', { name: 'a', type: 'user-facing', temperature: 1.5 }),
    'temperature',
  ],
  [
    'meta.temperature < 0',
    () => client.createAgent('cb', { name: 'a', type: 'user-facing', meta: { temperature: -0.1 } }),
    'meta.temperature',
  ],
  [
    'meta.bias -10 is not sent',
    () => client.createAgent('cb', { name: 'a', type: 'pre-canned', meta: { bias: -10 } }),
    'meta.bias',
  ],
  [
    'meta.stickness',
    () => client.createAgent('cb', { name: 'a', type: 'pre-canned', meta: { stickness: 2 } }),
    'meta.stickness',
  ],
  [
    'meta.tags colour',
    () =>
      client.createAgent('cb', {
        name: 'a',
        type: 'background',
        meta: { tags: [{ name: 't', color: 'red', criteria: '' }] },
      }),
    'meta.tags[0].color',
  ],
  [
    'meta.use_all_sources',
    () =>
      client.createAgent(
        'cb',
        bad({ name: 'a', type: 'user-facing', meta: { use_all_sources: 'yes' } }),
      ),
    'meta.use_all_sources',
  ],
  [
    'agent model blank',
    () => client.createAgent('cb', { name: 'a', type: 'user-facing', model: '' }),
    'model',
  ],
  ['update name blank', () => client.updateAgent('ag', { name: '' }), 'name'],
  ['update enabled', () => client.updateAgent('ag', bad({ enabled: 1 })), 'enabled'],
  ['update variables', () => client.updateAgent('ag', bad({ variables: {} })), 'variables'],
  [
    'update variable name',
    () => client.updateAgent('ag', bad({ variables: [{ description: 'd' }] })),
    'variables[0].name',
  ],
  [
    'update variable static',
    () =>
      client.updateAgent(
        'ag',
        bad({ variables: [{ name: 'v', default_value: { content: '', static: 2 } }] }),
      ),
    'variables[0].default_value.static',
  ],
  [
    'update data_source_uuids',
    () => client.updateAgent('ag', { data_source_uuids: ['ok', ''] }),
    'data_source_uuids[1]',
  ],
  [
    'update monitored_messages not a list',
    () => client.updateAgent('ag', bad({ human_escalation_settings: { monitored_messages: 'x' } })),
    'human_escalation_settings.monitored_messages',
  ],
  [
    'update notifications_enabled not a boolean',
    () =>
      client.updateAgent(
        'ag',
        bad({ human_escalation_settings: { notifications_enabled: 'maybe' } }),
      ),
    'human_escalation_settings.notifications_enabled',
  ],
  [
    'update stickness',
    () => client.updateAgent('ag', { meta: { stickness: 1.01 } }),
    'meta.stickness',
  ],
  ['qa question', () => client.addQaSource('cb', { question: '', answer: 'a' }), 'question'],
  ['qa answer', () => client.addQaSource('cb', bad({ question: 'q' })), 'answer'],
  ['url empty', () => client.addUrlSource('cb', { url: '' }), 'url'],
  ['url not http', () => client.addUrlSource('cb', { url: 'ftp://example.com/x' }), 'url'],
  ['url not absolute', () => client.addUrlSource('cb', { url: 'example.com/x' }), 'url'],
  ['upload without file', () => client.uploadSource('cb', bad({ file_name: 'a.pdf' })), 'file'],
  [
    'upload empty file',
    () => client.uploadSource('cb', { file: new Uint8Array(), file_name: 'a.pdf' }),
    'file',
  ],
  ['upload file_name', () => client.uploadSource('cb', bad({ file })), 'file_name'],
  [
    'upload link',
    () =>
      client.uploadSource('cb', {
        file,
        file_name: 'a.pdf',
        reference_source_link: 'javascript:alert(1)',
      }),
    'reference_source_link',
  ],
  [
    'upload meta',
    () => client.uploadSource('cb', bad({ file, file_name: 'a.pdf', meta: [] })),
    'meta',
  ],
  ['rename title', () => client.renameSource('ds', { title: ' ' }), 'title'],
  ['tag name', () => client.createSourceTag('cb', { name: '', color: '#000000' }), 'name'],
  ['tag colour word', () => client.createSourceTag('cb', { name: 't', color: 'red' }), 'color'],
  ['tag colour short', () => client.createSourceTag('cb', { name: 't', color: '#12345' }), 'color'],
  [
    'tag ids',
    () =>
      client.createSourceTag('cb', bad({ name: 't', color: '#000000', data_source_uuids: 'ds1' })),
    'data_source_uuids',
  ],
  ['tag update colour', () => client.updateSourceTag('tg', { color: '#GGGGGG' }), 'color'],
  [
    'initial_variables nested object',
    () => client.createSession('cb', bad({ initial_variables: { user: { name: 'x' } } })),
    'initial_variables.user',
  ],
  [
    'initial_variables nested array',
    () => client.createSession('cb', bad({ initial_variables: { tags: ['a'] } })),
    'initial_variables.tags',
  ],
  [
    'initial_variables not an object',
    () => client.createSession('cb', bad({ initial_variables: 'x' })),
    'initial_variables',
  ],
  ['query empty', () => client.streamMessage('se', { query: '' }), 'query'],
  ['query blank', () => client.streamMessage('se', { query: ' \n' }), 'query'],
  ['query missing', () => client.streamMessage('se', bad({})), 'query'],
  ['path id empty', () => client.listAgents(''), 'chatbotUuid'],
  ['path id with slash', () => client.listMessages('a/../b'), 'sessionUuid'],
  ['path id with space', () => client.updateAgent('a b', { name: 'x' }), 'agentUuid'],
  ['path id not a string', () => client.renameSource(bad(42), { title: 'x' }), 'sourceUuid'],
];

describe('every rule refuses a bad value before anything is sent', () => {
  for (const [name, call, field] of cases) {
    it(name, async () => {
      service.requests.length = 0;
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServiceError);
      const e = error as ServiceError;
      expect(e.kind).toBe('validation');
      expect(e.field).toBe(field);
      expect(e.rule).toBeTruthy();
      expect(e.message).toBe(`${field}: ${e.rule}`);
      expect(service.requests).toHaveLength(0);
    });
  }

  it('the good values of the same calls are sent', async () => {
    service.requests.length = 0;
    await client.createChatbot({ name: 'a', visibility: 'hybrid', rate_limit: [100, 360] });
    await client.createAgent('cb', {
      name: 'a',
      type: 'spam-defense',
      meta: { bias: 0, stickness: 1 },
    });
    await client.createSourceTag('cb', { name: 't', color: '#A1b2C3' });
    await client.createSession('cb', { initial_variables: { a: 'x', b: 1, c: true, d: null } });
    expect(service.requests).toHaveLength(4);
  });
});

describe('configuration', () => {
  it('refuses a bad base URL or a missing key', () => {
    expect(() => createServiceClient({ baseUrl: 'not a url', apiKey: API_KEY })).toThrow(/baseUrl/);
    expect(() => createServiceClient({ baseUrl: 'ftp://x', apiKey: API_KEY })).toThrow(/baseUrl/);
    expect(() => createServiceClient({ baseUrl: service.url, apiKey: '' })).toThrow(/apiKey/);
  });
});
