import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers.js';

const HEX32 = /^[0-9a-f]{32}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const AGENT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('chatbots', () => {
  it('creates with documented defaults and lists it', async () => {
    const bot = await h.client.createChatbot({ name: 'Support' });
    expect(bot.uuid).toMatch(HEX32);
    expect(bot.created_at).toMatch(ISO);
    expect(bot.meta).toMatchObject({
      visibility: 'private',
      rate_limit: [20, 240],
      show_citations: false,
    });
    expect(bot.meta.rate_limit_message).toMatch(/too many messages/i);
    const listed = await h.client.listChatbots();
    expect(listed.map((c) => c.uuid)).toContain(bot.uuid);
  });

  it('keeps every given meta value', async () => {
    const bot = await h.client.createChatbot({
      name: 'Public',
      visibility: 'hybrid',
      rate_limit: [100, 360],
      rate_limit_message: 'Slow down please.',
      show_citations: true,
    });
    expect(bot.meta).toEqual({
      visibility: 'hybrid',
      rate_limit: [100, 360],
      rate_limit_message: 'Slow down please.',
      show_citations: true,
    });
  });

  it.each([
    [{}, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 3 }, 'name'],
    [{ name: 'a', visibility: 'secret' }, 'visibility'],
    [{ name: 'a', rate_limit: [0, 5] }, 'rate_limit[0] (messages)'],
    [{ name: 'a', rate_limit: [101, 5] }, 'rate_limit[0] (messages)'],
    [{ name: 'a', rate_limit: [1.5, 5] }, 'rate_limit[0] (messages)'],
    [{ name: 'a', rate_limit: [5, 0] }, 'rate_limit[1] (seconds)'],
    [{ name: 'a', rate_limit: [5, 361] }, 'rate_limit[1] (seconds)'],
    [{ name: 'a', rate_limit: [5] }, 'rate_limit'],
    [{ name: 'a', rate_limit_message: 5 }, 'rate_limit_message'],
    [{ name: 'a', show_citations: 'yes' }, 'show_citations'],
    [[], 'body'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const res = await h.raw('POST', '/api/v1/chatbot/create', body);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation');
    expect(res.json.error.field).toBe(field);
    expect(res.json.error.message).toContain(field);
    expect(res.text).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  });

  it('accepts the edges of rate_limit', async () => {
    for (const rate_limit of [
      [1, 1],
      [100, 360],
    ]) {
      const res = await h.raw('POST', '/api/v1/chatbot/create', { name: 'edge', rate_limit });
      expect(res.status).toBe(200);
      expect(res.json.meta.rate_limit).toEqual(rate_limit);
    }
  });
});

describe('agents', () => {
  it('gives a new chatbot an enabled General Q&A agent that uses all sources', async () => {
    const bot = await h.client.createChatbot({ name: 'Agents' });
    const res = await h.raw('GET', `/api/v1/chatbot/${bot.uuid}/agents`);
    expect(res.status).toBe(200);
    expect(res.json).toHaveLength(1);
    const [agent] = res.json;
    expect(agent).toMatchObject({
      name: 'General Q&A',
      type: 'user-facing',
      enabled: true,
      data_source_uuids: [],
      tool_functions: [],
    });
    expect(agent.meta.use_all_sources).toBe(true);
    expect(typeof agent.meta.model).toBe('string');
    expect(agent.prompt.length).toBeGreaterThan(0);
    expect(agent.created_at).toMatch(AGENT_TIME);
    expect(agent.modified_at).toMatch(AGENT_TIME);
    expect(agent).not.toHaveProperty('variables'); // list items carry none
  });

  it('creates agents disabled, with variables, and human-escalation settings as 1/0', async () => {
    const bot = await h.client.createChatbot({ name: 'Escalate' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/agent/create`, {
      name: 'Humans',
      type: 'human-escalation',
      description: 'Hands over to staff',
    });
    expect(res.status).toBe(200);
    expect(res.json.enabled).toBe(false);
    expect(res.json.variables).toEqual([]);
    expect(res.json.uuid).toMatch(HEX32);
    expect(res.json.created_at).toMatch(AGENT_TIME);
    const settings = res.json.human_escalation_settings;
    expect(settings.notifications_enabled).toBe(1);
    expect(settings.sound_enabled).toBe(1);
    expect(settings.human_requested_message.length).toBeGreaterThan(0);
    expect(settings.monitored_messages).toEqual([]);

    const uf = await h.client.createAgent(bot.uuid, {
      name: 'Billing',
      type: 'user-facing',
      temperature: 0.7,
      model: 'gpt-4o-8k',
      meta: { bias: 0.5, stickness: 0.25 },
    });
    expect(uf.enabled).toBe(false);
    expect(uf.meta).toMatchObject({
      temperature: 0.7,
      model: 'gpt-4o-8k',
      bias: 0.5,
      stickness: 0.25,
    });
    expect(uf.human_escalation_settings).toBeUndefined();
    const names = (await h.client.listAgents(bot.uuid)).map((a) => a.name);
    expect(names).toEqual(['General Q&A', 'Humans', 'Billing']);
  });

  it('updates every accepted field and returns the whole agent with the model in meta', async () => {
    const bot = await h.client.createChatbot({ name: 'Update' });
    const source = await h.client.addQaSource(bot.uuid, { question: 'Q?', answer: 'A.' });
    const agent = await h.client.createAgent(bot.uuid, { name: 'Docs', type: 'user-facing' });
    const variable = {
      name: 'plan',
      description: 'the plan',
      example: 'pro',
      type: 'string',
      default_value: { content: 'free', static: 0 },
    };
    const res = await h.raw('POST', `/api/v1/agent/${agent.uuid}/update`, {
      name: 'Docs bot',
      description: 'Answers from the docs',
      prompt: 'Be brief.',
      model: 'gpt-4.1-mini-32k',
      enabled: true,
      variables: [variable],
      data_source_uuids: [source.uuid],
      temperature: 0.9,
      use_all_sources: false,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      uuid: agent.uuid,
      name: 'Docs bot',
      description: 'Answers from the docs',
      prompt: 'Be brief.',
      enabled: true,
      variables: [variable],
      data_source_uuids: [source.uuid],
      tool_functions: [],
    });
    expect(res.json.meta).toMatchObject({
      model: 'gpt-4.1-mini-32k',
      temperature: 0.9,
      use_all_sources: false,
    });
    expect(res.json).not.toHaveProperty('model');
    const listed = (await h.client.listAgents(bot.uuid)).find((a) => a.uuid === agent.uuid);
    expect(listed?.enabled).toBe(true);
    expect(listed?.name).toBe('Docs bot');
  });

  it('updates background tags and human-escalation settings', async () => {
    const bot = await h.client.createChatbot({ name: 'Tags' });
    const bg = await h.client.createAgent(bot.uuid, { name: 'Tagger', type: 'background' });
    const tags = [{ name: 'billing', color: '#aa00ff', criteria: 'invoices or refunds' }];
    const tagged = await h.client.updateAgent(bg.uuid, { tags, enabled: true });
    expect(tagged.meta.tags).toEqual(tags);
    const human = await h.client.createAgent(bot.uuid, { name: 'Staff', type: 'human-escalation' });
    const res = await h.raw('POST', `/api/v1/agent/${human.uuid}/update`, {
      human_escalation_settings: {
        human_requested_message: 'Hold on.',
        notifications_enabled: false,
      },
    });
    expect(res.json.human_escalation_settings).toMatchObject({
      human_requested_message: 'Hold on.',
      notifications_enabled: 0,
      sound_enabled: 1,
    });
    const wrong = await h.raw('POST', `/api/v1/agent/${bg.uuid}/update`, {
      human_escalation_settings: { human_requested_message: 'x' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.field).toBe('human_escalation_settings');
  });

  it.each([
    [{ type: 'user-facing' }, 'name'],
    [{ name: 'x' }, 'type'],
    [{ name: 'x', type: 'robot' }, 'type'],
    [{ name: 'x', type: 'user-facing', temperature: 1.5 }, 'temperature'],
    [{ name: 'x', type: 'user-facing', temperature: -0.1 }, 'temperature'],
    [{ name: 'x', type: 'user-facing', model: '' }, 'model'],
    [{ name: 'x', type: 'user-facing', description: 5 }, 'description'],
    [{ name: 'x', type: 'user-facing', prompt: false }, 'prompt'],
    [{ name: 'x', type: 'user-facing', meta: 'm' }, 'meta'],
    [{ name: 'x', type: 'user-facing', meta: { bias: 2 } }, 'meta.bias'],
    [{ name: 'x', type: 'user-facing', meta: { stickness: -1 } }, 'meta.stickness'],
    [{ name: 'x', type: 'user-facing', meta: { use_all_sources: 'y' } }, 'meta.use_all_sources'],
    [{ name: 'x', type: 'pre-canned', meta: { default_message: 1 } }, 'meta.default_message'],
    [
      {
        name: 'x',
        type: 'background',
        meta: { tags: [{ name: 't', color: 'red', criteria: '' }] },
      },
      'meta.tags[0].color',
    ],
  ])('agent create refuses %j naming %s', async (body, field) => {
    const bot = await h.client.createChatbot({ name: 'Bad agents' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/agent/create`, body);
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe(field);
    expect(res.json.error.message).toContain(field);
  });

  it.each([
    [{ enabled: 'true' }, 'enabled'],
    [{ name: '' }, 'name'],
    [{ variables: [{}] }, 'variables[0].name'],
    [
      { variables: [{ name: 'v', default_value: { static: 2 } }] },
      'variables[0].default_value.static',
    ],
    [{ temperature: 2 }, 'temperature'],
    [{ data_source_uuids: 'abc' }, 'data_source_uuids'],
    [{ data_source_uuids: ['0123456789abcdef0123456789abcdef'] }, 'data_source_uuids[0]'],
    [{ use_all_sources: 1 }, 'use_all_sources'],
    [{ tags: [{ name: 't', color: '#12345', criteria: 'c' }] }, 'tags[0].color'],
    [{ human_escalation_settings: 'x' }, 'human_escalation_settings'],
  ])('agent update refuses %j naming %s', async (body, field) => {
    const bot = await h.client.createChatbot({ name: 'Bad updates' });
    const [agent] = await h.client.listAgents(bot.uuid);
    const res = await h.raw('POST', `/api/v1/agent/${agent!.uuid}/update`, body);
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe(field);
  });

  it('answers 404 for an unknown chatbot or agent', async () => {
    expect((await h.raw('GET', '/api/v1/chatbot/nope/agents')).status).toBe(404);
    const res = await h.raw('POST', '/api/v1/agent/nope/update', { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
  });
});
