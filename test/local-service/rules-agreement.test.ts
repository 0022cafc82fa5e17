// One source for the interface's rules: the service answers a bad body with the very words the
// client uses to refuse it, and its route schemas are derived from the same zod rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaOf, schemas } from '../../src/local-service/routes/schemas.js';
import { isServiceError } from '../../src/service/errors.js';
import * as rules from '../../src/service/rules/bodies.js';
import * as validate from '../../src/service/validate.js';
import { startHarness, type Harness } from './helpers.js';

let h: Harness;
let chatbot: string;
let agent: string;
let tag: string;
let session: string;
let source: string;

beforeAll(async () => {
  h = await startHarness();
  chatbot = (await h.client.createChatbot({ name: 'Rules' })).uuid;
  agent = (await h.client.createAgent(chatbot, { name: 'Staff', type: 'human-escalation' })).uuid;
  tag = (await h.client.createSourceTag(chatbot, { name: 't', color: '#000000' })).uuid;
  session = (await h.client.createSession(chatbot)).uuid;
  source = (await h.client.addQaSource(chatbot, { question: 'q?', answer: 'a.' })).uuid;
});
afterAll(() => h.close());

/** The client's words for a bad body. */
function clientWords(check: (input: unknown) => unknown, body: unknown): string {
  try {
    check(body);
  } catch (error) {
    if (isServiceError(error, 'validation')) return error.message;
    throw error;
  }
  throw new Error(`the client accepts ${JSON.stringify(body)}`);
}

type Case = [name: string, path: () => string, check: (input: unknown) => unknown, body: unknown];

const cases: Case[] = [
  [
    'chatbot name type',
    () => '/api/v1/chatbot/create',
    validate.validateChatbotCreate,
    { name: 5 },
  ],
  [
    'chatbot rate_limit',
    () => '/api/v1/chatbot/create',
    validate.validateChatbotCreate,
    { name: 'a', rate_limit: [0, 5] },
  ],
  [
    'chatbot rate_limit text',
    () => '/api/v1/chatbot/create',
    validate.validateChatbotCreate,
    { name: 'a', rate_limit: ['x', 5] },
  ],
  [
    'chatbot empty message',
    () => '/api/v1/chatbot/create',
    validate.validateChatbotCreate,
    { name: 'a', rate_limit_message: '' },
  ],
  ['chatbot body array', () => '/api/v1/chatbot/create', validate.validateChatbotCreate, [1]],
  [
    'agent type',
    () => `/api/v1/chatbot/${chatbot}/agent/create`,
    validate.validateAgentCreate,
    { name: 'a', type: 'robot' },
  ],
  [
    'agent meta colour',
    () => `/api/v1/chatbot/${chatbot}/agent/create`,
    validate.validateAgentCreate,
    { name: 'a', type: 'background', meta: { tags: [{ name: 't', color: 'red', criteria: '' }] } },
  ],
  [
    'update variable static',
    () => `/api/v1/agent/${agent}/update`,
    validate.validateAgentUpdate,
    { variables: [{ name: 'v', default_value: { static: 2 } }] },
  ],
  [
    'update ids',
    () => `/api/v1/agent/${agent}/update`,
    validate.validateAgentUpdate,
    { data_source_uuids: ['ok', 'a b'] },
  ],
  [
    'update monitored_messages',
    () => `/api/v1/agent/${agent}/update`,
    validate.validateAgentUpdate,
    { human_escalation_settings: { monitored_messages: 'x' } },
  ],
  [
    'update notifications',
    () => `/api/v1/agent/${agent}/update`,
    validate.validateAgentUpdate,
    { human_escalation_settings: { notifications_enabled: 'maybe' } },
  ],
  [
    'qa answer',
    () => `/api/v1/chatbot/${chatbot}/data-source/qa`,
    validate.validateQaSource,
    { question: 'q' },
  ],
  [
    'url scheme',
    () => `/api/v1/chatbot/${chatbot}/data-source/url`,
    validate.validateUrlSource,
    { url: 'ftp://example.com/x' },
  ],
  [
    'url relative',
    () => `/api/v1/chatbot/${chatbot}/data-source/url`,
    validate.validateUrlSource,
    { url: 'example.com' },
  ],
  [
    'rename title',
    () => `/api/v1/data-source/${source}/update`,
    validate.validateSourceRename,
    { title: ' ' },
  ],
  [
    'tag colour',
    () => `/api/v1/chatbot/${chatbot}/source-tag/create`,
    validate.validateSourceTagCreate,
    { name: 't', color: '#12345' },
  ],
  [
    'tag update ids',
    () => `/api/v1/source-tag/${tag}/update`,
    validate.validateSourceTagUpdate,
    { data_source_uuids: 'ds' },
  ],
  [
    'session nested',
    () => `/api/v1/chatbot/${chatbot}/session/create`,
    validate.validateSessionCreate,
    { initial_variables: { a: { b: 1 } } },
  ],
  [
    'stream query',
    () => `/api/v1/session/${session}/message/stream`,
    validate.validateStream,
    { query: '' },
  ],
];

describe('the service and the client say the same about the same bad body', () => {
  it.each(cases)('%s', async (_name, path, check, body) => {
    const res = await h.raw('POST', path(), body);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toBe(clientWords(check, body));
  });
});

describe('route schemas come from the rules', () => {
  it('carries the rules Ajv can check: required fields, patterns, ranges, enums', () => {
    expect(schemas.chatbotCreate.body).toEqual(jsonSchemaOf(rules.chatbotCreate));
    expect(schemas.chatbotCreate.body).toMatchObject({
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '\\S' },
        visibility: { enum: ['private', 'public', 'hybrid'] },
        rate_limit: {
          items: [
            { type: 'integer', minimum: 1, maximum: 100 },
            { type: 'integer', minimum: 1, maximum: 360 },
          ],
          minItems: 2,
          maxItems: 2,
        },
      },
    });
    expect(schemas.byUuid.params).toMatchObject({
      properties: { uuid: { type: 'string', minLength: 1, pattern: '^[^/?#\\s]+$' } },
    });
    // Extra fields stay allowed (the service's fields keep growing).
    expect(schemas.agentUpdate.body).not.toHaveProperty('additionalProperties', false);
  });
});
