import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/service/errors.js';
import type { DataSource } from '../../src/service/types.js';
import { html, type Site, startSite } from './fixtures.js';
import { type Harness, readPieces, startHarness } from './helpers.js';

const GUIDE_HTML =
  '<html><head><title>Camping guide</title></head><body><h1>Tents</h1>' +
  '<p>Pitch the tent on flat ground, away from dry riverbeds.</p></body></html>';
let h: Harness;
let site: Site;
beforeAll(async () => {
  h = await startHarness();
  site = await startSite({
    '/guide': html(GUIDE_HTML),
    '/broken': (_req, res) => res.writeHead(500).end('boom'),
  });
});
afterAll(async () => {
  await h.close();
  await site.close();
});

/** The stored state of a URL source, read back through the 409 the interface answers. */
/** (A failed URL is fetched again instead; read it back with a rename to the same title.) */
async function current(chatbotUuid: string, url: string): Promise<DataSource> {
  try {
    await h.client.addUrlSource(chatbotUuid, { url });
  } catch (error) {
    if (isServiceError(error, 'conflict') && error.existing) return error.existing;
    throw error;
  }
  throw new Error('expected a 409 for a URL that is already a source');
}

describe('url sources', () => {
  it('are returned pending, fetched in the background, then answer with the page', async () => {
    const bot = await h.client.createChatbot({ name: 'Camping', show_citations: true });
    const url = `${site.url}/guide`;
    const added = await h.client.addUrlSource(bot.uuid, { url });
    expect(added).toMatchObject({ type: 'url', status: 'await', state: 'pending', file_name: url });
    expect(JSON.parse(added.meta_json)).toMatchObject({ reference_source_link: url });
    await h.service.drain();
    const done = await current(bot.uuid, url);
    expect(done).toMatchObject({ uuid: added.uuid, status: 'success', title: 'Camping guide' });
    expect(done.tokens).toBeGreaterThan(5);
    // file_size is what was downloaded, not the length of the extracted text.
    expect(done.file_size).toBe(Buffer.byteLength(GUIDE_HTML));
    expect(site.hits).toContain('/guide');

    const session = await h.client.createSession(bot.uuid);
    const text = (
      await readPieces(
        await h.client.streamMessage(session.uuid, { query: 'Where should I pitch the tent?' }),
      )
    ).join('');
    expect(text).toContain('flat ground');
    const [message] = await h.client.listMessages(session.uuid);
    expect(Object.values(message!.cite_data).map((c) => c.data_source_uuid)).toContain(added.uuid);
  });

  it('end in error with the reason for a failing page, and are fetched again when re-added', async () => {
    const bot = await h.client.createChatbot({ name: 'Broken' });
    const url = `${site.url}/broken`;
    const added = await h.client.addUrlSource(bot.uuid, { url });
    await h.service.drain();
    const failed = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/url`, { url });
    // A failed URL is fetched again: the same source, pending once more.
    expect(failed.status).toBe(200);
    expect(failed.json).toMatchObject({ uuid: added.uuid, status: 'await' });
    await h.service.drain();
    const again = await h.client.renameSource(added.uuid, { title: url });
    expect(again.status).toBe('error');
    expect(again.state).toBe('failed');
    expect(String(again.error_message)).toMatch(/500/);
    expect(JSON.parse(again.meta_json).error).toMatch(/500/);
    expect(site.hits.filter((p) => p === '/broken')).toHaveLength(2);
  });

  it('ends in error for an address nobody listens on', async () => {
    const closed = await startSite({});
    const url = `${closed.url}/gone`;
    await closed.close();
    const bot = await h.client.createChatbot({ name: 'Nobody' });
    const added = await h.client.addUrlSource(bot.uuid, { url });
    await h.service.drain();
    const failed = await h.client.renameSource(added.uuid, { title: 'Gone' });
    expect(failed.status).toBe('error');
    expect(String(failed.error_message)).toMatch(/could not fetch|ECONNREFUSED|refused/i);
  });

  it.each([[{}], [{ url: 'not a url' }], [{ url: 'ftp://example.com/x' }], [{ url: 5 }]])(
    'refuses %j naming url',
    async (body) => {
      const bot = await h.client.createChatbot({ name: 'Bad url' });
      const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/url`, body);
      expect(res.status).toBe(400);
      expect(res.json.error.field).toBe('url');
    },
  );

  it('refuses loopback addresses when told to', async () => {
    const strict = await startHarness({ refusePrivateUrls: true });
    try {
      const bot = await strict.client.createChatbot({ name: 'Strict' });
      const url = `${site.url}/guide`;
      const hitsBefore = site.hits.length;
      await strict.client.addUrlSource(bot.uuid, { url });
      await strict.service.drain();
      const res = await strict.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/url`, { url });
      expect(res.json.status).toBe('await'); // re-queued after the error
      await strict.service.drain();
      expect(site.hits.length).toBe(hitsBefore);
    } finally {
      await strict.close();
    }
  });
});

describe('source tags', () => {
  it('are created, listed and updated with their members', async () => {
    const bot = await h.client.createChatbot({ name: 'Tagged' });
    const a = await h.client.addQaSource(bot.uuid, { question: 'qa one', answer: 'first' });
    const b = await h.client.addQaSource(bot.uuid, { question: 'qa two', answer: 'second' });
    const tag = await h.client.createSourceTag(bot.uuid, {
      name: 'Policies',
      color: '#1a2B3c',
      data_source_uuids: [a.uuid, a.uuid],
    });
    expect(tag).toMatchObject({ name: 'Policies', color: '#1a2B3c', data_source_uuids: [a.uuid] });
    expect(tag.uuid).toMatch(/^[0-9a-f]{32}$/);
    const plain = await h.client.createSourceTag(bot.uuid, { name: 'Empty', color: '#000000' });
    expect(plain.data_source_uuids).toEqual([]);
    expect((await h.client.listSourceTags(bot.uuid)).map((t) => t.name)).toEqual([
      'Policies',
      'Empty',
    ]);

    const moved = await h.client.updateSourceTag(tag.uuid, { data_source_uuids: [b.uuid] });
    expect(moved).toMatchObject({
      name: 'Policies',
      color: '#1a2B3c',
      data_source_uuids: [b.uuid],
    });
    const renamed = await h.client.updateSourceTag(tag.uuid, { name: 'Rules', color: '#ffffff' });
    expect(renamed).toMatchObject({ name: 'Rules', color: '#ffffff', data_source_uuids: [b.uuid] });
    const listed = await h.client.listSourceTags(bot.uuid);
    expect(listed.find((t) => t.uuid === tag.uuid)).toMatchObject({
      name: 'Rules',
      data_source_uuids: [b.uuid],
    });
  });

  it.each([
    [{ color: '#000000' }, 'name'],
    [{ name: 't' }, 'color'],
    [{ name: 't', color: 'blue' }, 'color'],
    [{ name: 't', color: '#12345g' }, 'color'],
    [{ name: 't', color: '#000000', data_source_uuids: 'x' }, 'data_source_uuids'],
    [{ name: 't', color: '#000000', data_source_uuids: [''] }, 'data_source_uuids[0]'],
    [
      { name: 't', color: '#000000', data_source_uuids: ['ffffffffffffffffffffffffffffffff'] },
      'data_source_uuids[0]',
    ],
  ])('create refuses %j naming %s', async (body, field) => {
    const bot = await h.client.createChatbot({ name: 'Tag bad' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/source-tag/create`, body);
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe(field);
  });

  it('update refuses bad values and sources of another chatbot', async () => {
    const bot = await h.client.createChatbot({ name: 'Tag upd' });
    const other = await h.client.createChatbot({ name: 'Tag other' });
    const foreign = await h.client.addQaSource(other.uuid, { question: 'q', answer: 'a' });
    const tag = await h.client.createSourceTag(bot.uuid, { name: 't', color: '#abcdef' });
    const cases: [unknown, string][] = [
      [{ name: '' }, 'name'],
      [{ color: '#abc' }, 'color'],
      [{ data_source_uuids: [foreign.uuid] }, 'data_source_uuids[0]'],
    ];
    for (const [body, field] of cases) {
      const res = await h.raw('POST', `/api/v1/source-tag/${tag.uuid}/update`, body);
      expect(res.status).toBe(400);
      expect(res.json.error.field).toBe(field);
    }
    expect((await h.raw('POST', '/api/v1/source-tag/nope/update', { name: 'x' })).status).toBe(404);
  });
});
