import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/service/errors.js';
import { type Harness, KEY_B, readPieces, startHarness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('authentication', () => {
  it.each<[string, string | null]>([
    ['no header', null],
    ['an unknown key', 'not-a-key'],
  ])('answers 401 with %s', async (_name, key) => {
    for (const [method, path] of [
      ['GET', '/api/v1/chatbots'],
      ['POST', '/api/v1/chatbot/create'],
      ['GET', '/api/v1/session/x/messages'],
    ] as const) {
      const res = await h.raw(method, path, method === 'POST' ? { name: 'x' } : undefined, { key });
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('unauthorized');
      expect(res.text).not.toContain('not-a-key');
    }
  });

  it('answers 401 for a header that is not a bearer token', async () => {
    const res = await h.raw('GET', '/api/v1/chatbots', undefined, { key: null });
    expect(res.status).toBe(401);
    const empty = await h.raw('GET', '/api/v1/chatbots', undefined, { key: '' });
    expect(empty.status).toBe(401);
    const basic = await request(`${h.service.url}/api/v1/chatbots`, {
      headers: { authorization: `Basic ${Buffer.from(`u:${KEY_B}`).toString('base64')}` },
    });
    expect(basic.statusCode).toBe(401);
    await basic.body.dump();
  });

  it('answers 404 with a JSON body for a route that does not exist', async () => {
    const res = await h.raw('GET', '/api/v1/agent/models-unknown');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('not_found');
    const wrongMethod = await h.raw('DELETE', '/api/v1/nothing-here');
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.json.error.message).toContain('DELETE /api/v1/nothing-here');
  });

  it('answers 405 with Allow and a JSON body for a known path with the wrong method', async () => {
    const list = await h.raw('DELETE', '/api/v1/chatbots');
    expect(list.status).toBe(405);
    expect(list.headers.allow).toBe('GET, HEAD');
    expect(list.json.error).toMatchObject({ code: 'method_not_allowed' });
    expect(list.json.error.message).toContain('DELETE');
    const create = await h.raw('GET', '/api/v1/chatbot/abc123/agent/create');
    expect(create.status).toBe(405);
    expect(create.headers.allow).toBe('POST');
  });

  it('refuses a JSON endpoint sent as text/plain with 415 and the JSON error body', async () => {
    const res = await h.raw('POST', '/api/v1/chatbot/create', undefined, {
      rawBody: JSON.stringify({ name: 'Plain' }),
      contentType: 'text/plain',
    });
    expect(res.status).toBe(415);
    expect(res.json.error).toMatchObject({ code: 'unsupported_media_type' });
    expect(await h.client.listChatbots()).toEqual([]);
  });
});

describe('content types', () => {
  it('answers 415 for a body that is not JSON on a JSON endpoint', async () => {
    const res = await h.raw('POST', '/api/v1/chatbot/create', undefined, {
      rawBody: 'name=x',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(415);
    expect(res.json.error.message).toContain('application/json');
  });

  it('accepts JSON with a charset parameter', async () => {
    const res = await h.raw('POST', '/api/v1/chatbot/create', undefined, {
      rawBody: JSON.stringify({ name: 'charset' }),
      contentType: 'application/json; charset=utf-8',
    });
    expect(res.status).toBe(200);
    expect(res.json.name).toBe('charset');
  });
});

describe('two keys are two users', () => {
  it('never shows one user’s chatbot, agents, sources, tags or sessions to the other', async () => {
    const alice = h.client;
    const bob = h.clientFor(KEY_B);
    const bot = await alice.createChatbot({ name: 'Alice private' });
    const source = await alice.addQaSource(bot.uuid, {
      question: 'Secret recipe?',
      answer: 'Cinnamon and cardamom.',
    });
    const tag = await alice.createSourceTag(bot.uuid, { name: 'Secrets', color: '#123456' });
    const [agent] = await alice.listAgents(bot.uuid);
    const session = await alice.createSession(bot.uuid);
    await readPieces(
      await alice.streamMessage(session.uuid, { query: 'What is the secret recipe?' }),
    );

    const bobBot = await bob.createChatbot({ name: 'Bob own' });
    expect((await bob.listChatbots()).map((c) => c.uuid)).toEqual([bobBot.uuid]);
    expect((await alice.listChatbots()).map((c) => c.uuid)).not.toContain(bobBot.uuid);

    const notFound = (e: unknown) => isServiceError(e, 'not_found') && e.status === 404;
    await expect(bob.listAgents(bot.uuid)).rejects.toSatisfy(notFound);
    await expect(bob.createAgent(bot.uuid, { name: 'x', type: 'background' })).rejects.toSatisfy(
      notFound,
    );
    await expect(bob.updateAgent(agent!.uuid, { enabled: false })).rejects.toSatisfy(notFound);
    await expect(bob.addQaSource(bot.uuid, { question: 'q', answer: 'a' })).rejects.toSatisfy(
      notFound,
    );
    await expect(bob.addUrlSource(bot.uuid, { url: 'http://127.0.0.1:9/x' })).rejects.toSatisfy(
      notFound,
    );
    await expect(
      bob.uploadSource(bot.uuid, { file: new Uint8Array([104, 105]), file_name: 'hi.txt' }),
    ).rejects.toSatisfy(notFound);
    await expect(bob.renameSource(source.uuid, { title: 'mine' })).rejects.toSatisfy(notFound);
    await expect(bob.listSourceTags(bot.uuid)).rejects.toSatisfy(notFound);
    await expect(bob.createSourceTag(bot.uuid, { name: 't', color: '#000000' })).rejects.toSatisfy(
      notFound,
    );
    await expect(bob.updateSourceTag(tag.uuid, { name: 'mine' })).rejects.toSatisfy(notFound);
    await expect(bob.createSession(bot.uuid)).rejects.toSatisfy(notFound);
    await expect(bob.streamMessage(session.uuid, { query: 'secret?' })).rejects.toSatisfy(notFound);
    await expect(bob.listMessages(session.uuid)).rejects.toSatisfy(notFound);

    // Bob cannot attach Alice's source to his own tag or agent either.
    const res = await h.raw(
      'POST',
      `/api/v1/chatbot/${bobBot.uuid}/source-tag/create`,
      { name: 't', color: '#000000', data_source_uuids: [source.uuid] },
      { key: KEY_B },
    );
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe('data_source_uuids[0]');

    // Alice's things are unchanged.
    expect((await alice.listAgents(bot.uuid))[0]?.enabled).toBe(true);
    expect((await alice.listSourceTags(bot.uuid)).map((t) => t.name)).toEqual(['Secrets']);
    expect(await alice.listMessages(session.uuid)).toHaveLength(1);
    // Bob's retrieval never reaches Alice's sources.
    await bob.addQaSource(bobBot.uuid, { question: 'Bob topic', answer: 'Bob things.' });
    const bobSession = await bob.createSession(bobBot.uuid);
    const text = (
      await readPieces(
        await bob.streamMessage(bobSession.uuid, { query: 'What is the secret recipe?' }),
      )
    ).join('');
    expect(text).not.toContain('Cinnamon');
  });
});
