import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, KEY_A, readPieces, startHarness } from './helpers.js';

const MARKER = /\[(\d+\.\d+)\]/g;

/** Pieces after the first wait here until the test opens the gate. */
function gate() {
  let open = false;
  const waiting: (() => void)[] = [];
  let calledResolve: () => void = () => undefined;
  const called = new Promise<void>((resolve) => (calledResolve = resolve));
  return {
    called,
    pacer: () => {
      calledResolve();
      return open ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve));
    },
    open() {
      open = true;
      waiting.splice(0).forEach((release) => release());
    },
  };
}

const g = gate();
let h: Harness;
let slow: Harness;
beforeAll(async () => {
  h = await startHarness();
  slow = await startHarness({ pacer: g.pacer });
});
afterAll(async () => {
  await h.close();
  await slow.close();
});

async function knowledgeBot(harness: Harness, showCitations: boolean) {
  const bot = await harness.client.createChatbot({
    name: 'Kettles',
    show_citations: showCitations,
  });
  const zephyr = await harness.client.addQaSource(bot.uuid, {
    question: 'How fast does the Zephyr kettle boil water?',
    answer:
      'The Zephyr kettle boils a full litre of water in ninety seconds. It switches off by itself. Clean the kettle with vinegar once a month.',
  });
  const aurora = await harness.client.uploadSource(bot.uuid, {
    file: new TextEncoder().encode(
      'Aurora toaster\n\nThe Aurora toaster has six browning levels and a defrost button.\n\nIts crumb tray slides out for cleaning.',
    ),
    file_name: 'aurora.md',
  });
  return { bot, zephyr, aurora };
}

describe('sessions', () => {
  it('are created with or without initial variables', async () => {
    const bot = await h.client.createChatbot({ name: 'Sessions' });
    const plain = await h.client.createSession(bot.uuid);
    expect(plain.uuid).toMatch(/^[0-9a-f]{32}$/);
    expect(plain.created_at).toMatch(/Z$/);
    expect(plain).not.toHaveProperty('initial_variables');
    const vars = { platform: 'slack', user: 'ana', count: 2, admin: false, none: null };
    expect(
      (await h.client.createSession(bot.uuid, { initial_variables: vars })).initial_variables,
    ).toEqual(vars);
    const noBody = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/session/create`);
    expect(noBody.status).toBe(200);
    const emptyJson = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/session/create`, undefined, {
      rawBody: '',
    });
    expect(emptyJson.status).toBe(200);
  });

  it.each([
    [{ initial_variables: { nested: { a: 1 } } }, 'initial_variables.nested'],
    [{ initial_variables: ['x'] }, 'initial_variables'],
    [{ initial_variables: 'x' }, 'initial_variables'],
  ])('refuses %j naming %s', async (body, field) => {
    const bot = await h.client.createChatbot({ name: 'Bad session' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/session/create`, body);
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe(field);
  });

  it('refuses a missing or empty query and answers 404 for an unknown session', async () => {
    const bot = await h.client.createChatbot({ name: 'Query' });
    const session = await h.client.createSession(bot.uuid);
    for (const body of [{}, { query: '' }, { query: 42 }]) {
      const res = await h.raw('POST', `/api/v1/session/${session.uuid}/message/stream`, body);
      expect(res.status).toBe(400);
      expect(res.json.error.field).toBe('query');
    }
    expect(
      (await h.raw('POST', '/api/v1/session/nope/message/stream', { query: 'hi' })).status,
    ).toBe(404);
    expect((await h.raw('GET', '/api/v1/session/nope/messages')).status).toBe(404);
    expect(await h.client.listMessages(session.uuid)).toEqual([]);
  });
});

describe('streaming', () => {
  it('answers as chunked UTF-8 plain text', async () => {
    const { bot } = await knowledgeBot(h, false);
    const session = await h.client.createSession(bot.uuid);
    const res = await request(`${h.service.url}/api/v1/session/${session.uuid}/message/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'How fast does the kettle boil?' }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(await res.body.text()).toContain('ninety seconds');
  });

  it('writes pieces as they are produced and stores the message before closing', async () => {
    const { bot } = await knowledgeBot(slow, false);
    const session = await slow.client.createSession(bot.uuid);
    const stream = await slow.client.streamMessage(session.uuid, {
      query: 'How fast does the Zephyr kettle boil?',
    });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    await g.called; // the second piece is being held back…
    expect(await slow.client.listMessages(session.uuid)).toEqual([]); // …so nothing is stored yet
    g.open();
    const pieces = [first.value as string];
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      pieces.push(next.value);
    const text = pieces.join('');
    expect(text).toContain('ninety seconds');
    const [message] = await slow.client.listMessages(session.uuid);
    expect(message).toMatchObject({
      query: 'How fast does the Zephyr kettle boil?',
      response: text,
      finish_reason: 'stop',
      cite_data_json: '{}',
    });
    expect(text).not.toMatch(MARKER);
  });

  it('arrives in several pieces with a stream delay', async () => {
    const paced = await startHarness({ streamDelayMs: 15 });
    try {
      const { bot } = await knowledgeBot(paced, false);
      const session = await paced.client.createSession(bot.uuid);
      const pieces = await readPieces(
        await paced.client.streamMessage(session.uuid, {
          query: 'How fast does the Zephyr kettle boil water?',
        }),
      );
      expect(pieces.length).toBeGreaterThan(3);
      const [message] = await paced.client.listMessages(session.uuid);
      expect(message?.response).toBe(pieces.join(''));
    } finally {
      await paced.close();
    }
  });

  it('carries [n.m] markers that resolve to real data sources when citations are on', async () => {
    const { bot, zephyr, aurora } = await knowledgeBot(h, true);
    const session = await h.client.createSession(bot.uuid);
    const text = (
      await readPieces(
        await h.client.streamMessage(session.uuid, {
          query: 'How many browning levels does the Aurora toaster have?',
        }),
      )
    ).join('');
    const [message] = await h.client.listMessages(session.uuid);
    expect(message?.response).toBe(text);
    const markers = [...text.matchAll(MARKER)].map((m) => m[1]);
    expect(markers.length).toBeGreaterThan(0);
    const cites = JSON.parse(message!.cite_data_json) as Record<
      string,
      { data_source_uuid: string; title: string; text: string; file_name: string; type: string }
    >;
    const known = new Map([zephyr, aurora].map((s) => [s.uuid, s]));
    for (const key of markers) {
      const entry = cites[key as string];
      expect(entry).toBeDefined();
      const source = known.get(entry!.data_source_uuid);
      expect(source).toBeDefined();
      expect(entry).toMatchObject({
        title: source!.title,
        file_name: source!.file_name,
        type: source!.type,
      });
      expect(entry!.text.length).toBeGreaterThan(0);
    }
    expect(Object.values(cites).map((c) => c.data_source_uuid)).toContain(aurora.uuid);
  });

  it('says so honestly when the sources do not answer', async () => {
    const { bot } = await knowledgeBot(h, true);
    const session = await h.client.createSession(bot.uuid);
    const text = (
      await readPieces(
        await h.client.streamMessage(session.uuid, { query: 'Who won the chess olympiad?' }),
      )
    ).join('');
    expect(text).toMatch(/could not find that in my sources/i);
    const [message] = await h.client.listMessages(session.uuid);
    expect(message?.cite_data_json).toBe('{}');
  });

  it('keeps messages in order and reads a follow-up with the earlier turn', async () => {
    const { bot } = await knowledgeBot(h, false);
    const session = await h.client.createSession(bot.uuid);
    await readPieces(
      await h.client.streamMessage(session.uuid, { query: 'Tell me about the Zephyr kettle' }),
    );
    const followUp = (
      await readPieces(await h.client.streamMessage(session.uuid, { query: 'How do I clean it?' }))
    ).join('');
    expect(followUp).toContain('vinegar');
    const before = (text: string, a: string, b: string) =>
      !text.includes(b) || text.indexOf(a) < text.indexOf(b);
    expect(before(followUp, 'vinegar', 'crumb tray')).toBe(true);
    // The same words without the earlier turn put the toaster first.
    const fresh = await h.client.createSession(bot.uuid);
    const alone = (
      await readPieces(await h.client.streamMessage(fresh.uuid, { query: 'How do I clean it?' }))
    ).join('');
    expect(alone).toContain('crumb tray');
    expect(before(alone, 'crumb tray', 'vinegar')).toBe(true);
    const messages = await h.client.listMessages(session.uuid);
    expect(messages.map((m) => m.query)).toEqual([
      'Tell me about the Zephyr kettle',
      'How do I clean it?',
    ]);
    expect(messages[1]?.response).toBe(followUp);
    expect(Date.parse(messages[1]!.created_at)).toBeGreaterThanOrEqual(
      Date.parse(messages[0]!.created_at),
    );
  });

  it('answers an unrelated follow-up honestly instead of repeating the earlier topic', async () => {
    const { bot } = await knowledgeBot(h, true);
    const session = await h.client.createSession(bot.uuid);
    await readPieces(
      await h.client.streamMessage(session.uuid, { query: 'Tell me about the Zephyr kettle' }),
    );
    for (const query of ['Who won the chess olympiad?', 'What colour is it?']) {
      const text = (await readPieces(await h.client.streamMessage(session.uuid, { query }))).join(
        '',
      );
      expect(text).toMatch(/could not find that in my sources/i);
    }
    const messages = await h.client.listMessages(session.uuid);
    expect(messages.map((m) => m.cite_data_json).slice(1)).toEqual(['{}', '{}']);
  });
});
