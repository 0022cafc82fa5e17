// What a hostile or broken client sends: values nested thousands deep, broken multipart forms,
// bodies that never end, typed fields of the wrong type. Each gets a 4xx in the service's error
// shape, nothing of it is stored, and the service keeps answering.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/local-service/json-depth.js';
import { readPieces, startHarness, type Harness } from './helpers.js';
import { field, filePart, form, rawHttp } from './raw-http.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const nested = (levels: number, inner: unknown = 1): unknown => {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};
/** JSON text of `levels` arrays inside each other (built as text: no recursion anywhere). */
const nestedText = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

async function escalationAgent(harness: Harness) {
  const bot = await harness.client.createChatbot({ name: 'Hostile' });
  const agent = await harness.client.createAgent(bot.uuid, {
    name: 'Staff',
    type: 'human-escalation',
  });
  return { bot, agent };
}

describe('nesting depth', () => {
  it('refuses an agent update nested 4,000 and 6,000 deep with 400 naming the field; reads still work', async () => {
    h = await startHarness();
    const { bot, agent } = await escalationAgent(h);
    for (const levels of [4_000, 6_000]) {
      const res = await h.raw('POST', `/api/v1/agent/${agent.uuid}/update`, undefined, {
        rawBody: `{"human_escalation_settings":{"monitored_messages":${nestedText(levels)}}}`,
      });
      expect(res.status).toBe(400);
      expect(res.json.error).toEqual({
        code: 'validation',
        field: 'human_escalation_settings',
        message: `human_escalation_settings: must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      });
    }
    // Nothing was stored: the agents and an answer still read back.
    const agents = await h.client.listAgents(bot.uuid);
    expect(agents.map((a) => a.uuid)).toContain(agent.uuid);
    const session = await h.client.createSession(bot.uuid);
    const pieces = await readPieces(await h.client.streamMessage(session.uuid, { query: 'hi' }));
    expect(pieces.join('').length).toBeGreaterThan(0);
    expect(await h.client.listMessages(session.uuid)).toHaveLength(1);
  });

  it(`takes ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}, counting the body itself`, async () => {
    h = await startHarness();
    const { agent } = await escalationAgent(h);
    const path = `/api/v1/agent/${agent.uuid}/update`;
    // The body and human_escalation_settings are two levels; the list's arrays the rest.
    const inside = (levels: number) => ({
      human_escalation_settings: { monitored_messages: nested(levels - 2, 'm') },
    });
    const ok = await h.raw('POST', path, inside(MAX_JSON_DEPTH));
    expect(ok.status).toBe(200);
    expect(JSON.stringify(ok.json.human_escalation_settings.monitored_messages)).toBe(
      JSON.stringify(nested(MAX_JSON_DEPTH - 2, 'm')),
    );
    const deep = await h.raw('POST', path, inside(MAX_JSON_DEPTH + 1));
    expect(deep.status).toBe(400);
    expect(deep.json.error.field).toBe('human_escalation_settings');
  });

  it('counts brackets inside strings as text, not nesting', async () => {
    h = await startHarness();
    const name = `${'['.repeat(100)}"{\\"${'{'.repeat(100)}`;
    const bot = await h.client.createChatbot({ name });
    expect(bot.name).toBe(name);
  });

  it('names the body when the body itself is the deep value', async () => {
    h = await startHarness();
    const res = await h.raw('POST', '/api/v1/chatbot/create', undefined, {
      rawBody: nestedText(20_000),
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation', field: 'body' });
  });

  it('refuses an upload whose meta_json nests 20,000 deep, naming meta_json', async () => {
    h = await startHarness();
    const bot = await h.client.createChatbot({ name: 'Uploads' });
    const res = await rawHttp({
      port: h.service.port,
      path: `/api/v1/chatbot/${bot.uuid}/data-source/upload`,
      contentType: 'multipart/form-data; boundary=X',
      body: form(field('meta_json', `{"tags":${nestedText(20_000)}}`), filePart('hello')),
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation', field: 'meta_json.tags' });
    expect(res.json.error.message).toMatch(/more than \d+ levels deep/);
  });
});

describe('broken multipart forms', () => {
  const upload = async (body: string, contentType = 'multipart/form-data; boundary=X') => {
    const bot = await h.client.createChatbot({ name: 'Uploads' });
    return rawHttp({
      port: h.service.port,
      path: `/api/v1/chatbot/${bot.uuid}/data-source/upload`,
      contentType,
      body,
    });
  };

  it('a form with no boundary is 400', async () => {
    h = await startHarness();
    const res = await upload(form(filePart('hello')), 'multipart/form-data');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_multipart', field: 'body' });
    expect(res.json.error.message).toMatch(/boundary/i);
  });

  it('more fields than the limit is 400 naming the rule', async () => {
    h = await startHarness();
    const fields = Array.from({ length: 40 }, (_, i) => field(`f${i}`, 'v'));
    const res = await upload(form(...fields, filePart('hello')));
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual({
      code: 'validation',
      field: 'body',
      message: 'body: too many form fields',
    });
  });

  it('more files than one is 400', async () => {
    h = await startHarness();
    const res = await upload(form(filePart('a'), filePart('b')));
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe('file');
  });

  it('a form cut off in the middle of the file is 400', async () => {
    h = await startHarness();
    const whole = form(filePart('hello, this is the whole file'));
    const res = await upload(whole.slice(0, whole.indexOf('whole')));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_multipart', field: 'body' });
  });

  it('a form that stops arriving is 400 after the idle limit, and the connection is closed', async () => {
    h = await startHarness({ uploadIdleTimeoutMs: 150 });
    const bot = await h.client.createChatbot({ name: 'Uploads' });
    const whole = form(filePart('hello, this is the whole file'));
    const res = await rawHttp({
      port: h.service.port,
      path: `/api/v1/chatbot/${bot.uuid}/data-source/upload`,
      contentType: 'multipart/form-data; boundary=X',
      body: whole.slice(0, whole.indexOf('whole')),
      contentLength: Buffer.byteLength(whole),
      end: false, // the client keeps the socket open and sends nothing more
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'incomplete_body', field: 'body' });
    expect(res.headers.connection).toBe('close');
    // The service is free for the next caller.
    expect((await h.client.listChatbots()).length).toBe(1);
  });

  it('a file over the limit is 413', async () => {
    h = await startHarness({ maxUploadBytes: 1_000 });
    const res = await upload(form(filePart('a'.repeat(5_000))));
    expect(res.status).toBe(413);
    expect(res.json.error).toEqual({
      code: 'too_large',
      field: 'file',
      message: 'file: must be at most 1000 bytes',
    });
  });

  it('a meta_json larger than a form field may be is 413, not a truncated parse', async () => {
    h = await startHarness();
    const meta = JSON.stringify({ note: 'n'.repeat(70 * 1024) });
    const res = await upload(form(field('meta_json', meta), filePart('hello')));
    expect(res.status).toBe(413);
    expect(res.json.error.field).toBe('meta_json');
  });

  it('a JSON endpoint refuses a multipart body with 415 (session/create, agent update)', async () => {
    h = await startHarness();
    const { bot, agent } = await escalationAgent(h);
    for (const path of [
      `/api/v1/chatbot/${bot.uuid}/session/create`,
      `/api/v1/agent/${agent.uuid}/update`,
    ]) {
      const res = await rawHttp({
        port: h.service.port,
        path,
        contentType: 'multipart/form-data; boundary=X',
        body: form(field('initial_variables', 'x')),
      });
      expect(res.status).toBe(415);
      expect(res.json.error.code).toBe('unsupported_media_type');
    }
  });
});

describe('typed fields', () => {
  it('refuses an empty rate_limit_message (the 429 would say nothing); leaving it out gives the default', async () => {
    h = await startHarness();
    const res = await h.raw('POST', '/api/v1/chatbot/create', {
      name: 'a',
      rate_limit_message: '',
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation', field: 'rate_limit_message' });
    expect(res.json.error.message).toMatch(/^rate_limit_message: must not be empty/);
    const blank = await h.raw('POST', '/api/v1/chatbot/create', {
      name: 'a',
      rate_limit_message: '  ',
    });
    expect(blank.status).toBe(400);
    const bot = await h.client.createChatbot({ name: 'a' });
    expect(bot.meta.rate_limit_message).toMatch(/too many messages/i);
  });

  it('refuses human-escalation settings of the wrong type instead of dropping or guessing them', async () => {
    h = await startHarness();
    const { agent } = await escalationAgent(h);
    const path = `/api/v1/agent/${agent.uuid}/update`;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ monitored_messages: 'x' }, 'human_escalation_settings.monitored_messages'],
      [{ notifications_enabled: 'maybe' }, 'human_escalation_settings.notifications_enabled'],
      [{ sound_enabled: 2 }, 'human_escalation_settings.sound_enabled'],
      [{ human_requested_message: 5 }, 'human_escalation_settings.human_requested_message'],
    ];
    for (const [settings, fieldName] of cases) {
      const res = await h.raw('POST', path, { human_escalation_settings: settings });
      expect(res.status, fieldName).toBe(400);
      expect(res.json.error.field).toBe(fieldName);
    }
    const [stored] = (await h.client.listAgents((await h.client.listChatbots())[0]!.uuid)).filter(
      (a) => a.uuid === agent.uuid,
    );
    expect(stored!.human_escalation_settings).toMatchObject({
      monitored_messages: [],
      notifications_enabled: true,
    });
    // 1/0 and true/false are both the interface's booleans.
    const ok = await h.raw('POST', path, {
      human_escalation_settings: { notifications_enabled: 0, sound_enabled: true },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.human_escalation_settings).toMatchObject({
      notifications_enabled: 0,
      sound_enabled: 1,
    });
  });
});
