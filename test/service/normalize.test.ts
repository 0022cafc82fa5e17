import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/service/api.js';
import {
  classifySourceStatus,
  normalizeAgent,
  normalizeChatbot,
  normalizeDataSource,
  normalizeMessage,
  parseJsonField,
  toBoolean,
} from '../../src/service/normalize.js';
import { clientFor, sendJson, useFakeService } from './fake-service.js';

describe('booleans', () => {
  it('accepts true/false, 1/0 and their text forms', () => {
    for (const yes of [true, 1, '1', 'true', 'TRUE']) expect(toBoolean(yes)).toBe(true);
    for (const no of [false, 0, '0', 'false', ' False ']) expect(toBoolean(no)).toBe(false);
    expect(toBoolean(undefined)).toBe(false);
    expect(toBoolean('maybe', true)).toBe(true);
  });
});

describe('agents', () => {
  const listed = {
    uuid: 'a1',
    name: 'Escalate',
    type: 'human-escalation',
    enabled: 1,
    meta: { bias: -10, stickness: '0.5', future_knob: 'x' },
    human_escalation_settings: {
      notifications_enabled: 0,
      sound_enabled: '1',
      monitored_messages: [],
    },
    tool_functions: [
      {
        uuid: 't1',
        enabled: 0,
        method: 'POST',
        parameters: { properties: { q: { type: 'string' } } },
      },
    ],
    brand_new_field: { nested: true },
  };

  it('turns 1/0 into booleans everywhere and keeps bias -10 and unknown fields', () => {
    const agent = normalizeAgent(listed);
    expect(agent.enabled).toBe(true);
    expect(agent.meta.bias).toBe(-10);
    expect(agent.meta.stickness).toBe(0.5);
    expect(agent.meta.future_knob).toBe('x');
    expect(agent.human_escalation_settings).toMatchObject({
      notifications_enabled: false,
      sound_enabled: true,
      monitored_messages: [],
    });
    expect(agent.tool_functions[0]).toMatchObject({
      enabled: false,
      method: 'POST',
      headers: {},
      meta: {},
    });
    expect(agent.tool_functions[0]!.parameters.type).toBe('object');
    expect(agent.brand_new_field).toEqual({ nested: true });
    // Defaults for what was missing; list items carry no variables.
    expect(agent).toMatchObject({ description: '', prompt: '', data_source_uuids: [] });
    expect(agent).not.toHaveProperty('variables');
  });

  it('a disabled agent sent as false stays false; missing enabled is false', () => {
    expect(normalizeAgent({ enabled: false }).enabled).toBe(false);
    expect(normalizeAgent({}).enabled).toBe(false);
    expect(normalizeAgent({}).meta).toEqual({});
  });
});

describe('chatbots', () => {
  it('defaults a missing meta and keeps unknown keys', () => {
    const bot = normalizeChatbot({
      uuid: 'c',
      name: 'n',
      meta: { show_citations: '0', theme: 'dark' },
      x: 1,
    });
    expect(bot.meta).toEqual({
      show_citations: false,
      theme: 'dark',
      rate_limit: [0, 0],
      rate_limit_message: '',
      visibility: '',
    });
    expect(bot.x).toBe(1);
    expect(normalizeChatbot({ meta: '{"visibility":"public"}' }).meta.visibility).toBe('public');
  });
});

describe('JSON text fields', () => {
  it.each([
    ['', {}, ''],
    ['{}', {}, '{}'],
    ['null', {}, 'null'],
    ['not json', {}, 'not json'],
    ['[1,2]', {}, '[1,2]'],
    [
      '{"reference_source_link":"https://e.com"}',
      { reference_source_link: 'https://e.com' },
      '{"reference_source_link":"https://e.com"}',
    ],
  ])('%j → parsed object and raw text', (input, value, raw) => {
    expect(parseJsonField(input)).toEqual({ raw, value });
  });

  it('accepts an object already parsed, and null', () => {
    expect(parseJsonField({ a: 1 })).toEqual({ raw: '{"a":1}', value: { a: 1 } });
    expect(parseJsonField(null)).toEqual({ raw: '', value: {} });
    expect(parseJsonField(undefined)).toEqual({ raw: '', value: {} });
  });

  it('parses cite_data_json in every variant', () => {
    const entry = {
      data_source_uuid: 'd1',
      title: 'T',
      text: 'passage',
      file_name: 'f.pdf',
      type: 'file',
      score: 0.9,
    };
    const asText = normalizeMessage({ cite_data_json: JSON.stringify({ '3.4': entry }) });
    expect(asText.cite_data['3.4']).toEqual(entry);
    const asObject = normalizeMessage({ cite_data_json: { '3.4': entry } });
    expect(asObject.cite_data).toEqual(asText.cite_data);
    expect(JSON.parse(asObject.cite_data_json)).toEqual({ '3.4': entry });
    for (const empty of ['', '{}', 'null', null, undefined]) {
      expect(normalizeMessage({ cite_data_json: empty }).cite_data).toEqual({});
    }
    // Entries that are not objects are dropped; partial entries are defaulted.
    const odd = normalizeMessage({ cite_data_json: { a: 'x', b: { title: 'only' } } });
    expect(odd.cite_data).toEqual({
      b: { title: 'only', data_source_uuid: '', text: '', file_name: '', type: '' },
    });
  });

  it('keeps observed extra message fields', () => {
    const m = normalizeMessage({
      uuid: 'm',
      response: 'r',
      error_message: 'context too long',
      labels: ['x'],
      session_documents: [],
    });
    expect(m).toMatchObject({
      error_message: 'context too long',
      labels: ['x'],
      session_documents: [],
      query: '',
    });
  });
});

describe('data sources', () => {
  it.each([
    ['success', 'ready'],
    ['await', 'pending'],
    ['queued', 'pending'],
    ['embedding', 'pending'],
    ['something-new', 'pending'],
    ['', 'pending'],
    ['error', 'failed'],
    ['error:storage', 'failed'],
    ['error:token', 'failed'],
    ['fail', 'failed'],
  ])('status %j is %s', (status, state) => {
    expect(classifySourceStatus(status)).toBe(state);
    expect(normalizeDataSource({ status }).state).toBe(state);
  });

  it('parses meta_json and keeps an open type', () => {
    const ds = normalizeDataSource({
      uuid: 'd',
      type: 'google-drive',
      file_size: '1024',
      meta_json: '{"reference_source_link":"https://e.com/doc"}',
    });
    expect(ds).toMatchObject({
      type: 'google-drive',
      file_size: 1024,
      tokens: 0,
      meta: { reference_source_link: 'https://e.com/doc' },
    });
  });
});

describe('through the client', () => {
  const service = useFakeService();
  let client: ServiceClient;
  beforeAll(() => {
    client = clientFor(service);
  });
  afterAll(() => client.close());

  it('lists agents with 1/0 booleans, bias -10 and unknown fields intact', async () => {
    service.handle((_req, res) =>
      sendJson(res, 200, [{ uuid: 'a', enabled: '0', meta: { bias: -10 }, surprise: [1] }]),
    );
    const [agent] = await client.listAgents('cb');
    expect(agent).toMatchObject({ enabled: false, meta: { bias: -10 }, surprise: [1] });
  });

  it('reads messages with cite_data_json as text', async () => {
    service.handle((_req, res) =>
      sendJson(res, 200, [
        { uuid: 'm', response: 'See [1.2].', cite_data_json: '{"1.2":{"title":"Doc"}}' },
      ]),
    );
    const [message] = await client.listMessages('se');
    expect(message!.cite_data['1.2']!.title).toBe('Doc');
  });
});
