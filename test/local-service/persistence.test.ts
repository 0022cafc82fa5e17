import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServiceError } from '../../src/service/errors.js';
import { html, type Site, startSite } from './fixtures.js';
import { type Harness, readPieces, startHarness } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatbridge-ls-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a restart on SQLite', () => {
  it('keeps chatbots, agents, sources, tags, sessions, messages and the index', async () => {
    const storeUrl = `sqlite://${join(dir, 'keep.sqlite')}`;
    let h: Harness = await startHarness({ storeUrl });
    const bot = await h.client.createChatbot({
      name: 'Durable',
      show_citations: true,
      rate_limit: [5, 60],
    });
    const [general] = await h.client.listAgents(bot.uuid);
    await h.client.updateAgent(general!.uuid, { prompt: 'Answer like a lighthouse keeper.' });
    const helper = await h.client.createAgent(bot.uuid, { name: 'Helper', type: 'pre-canned' });
    const qa = await h.client.addQaSource(bot.uuid, {
      question: 'When does the lighthouse shine?',
      answer: 'The lighthouse shines from dusk until dawn, every night of the year.',
    });
    const file = new TextEncoder().encode(
      'The lamp is cleaned every Sunday morning by the keeper.',
    );
    const upload = await h.client.uploadSource(bot.uuid, { file, file_name: 'lamp.txt' });
    await h.client.renameSource(upload.uuid, { title: 'Lamp care' });
    const tag = await h.client.createSourceTag(bot.uuid, {
      name: 'Light',
      color: '#ffcc00',
      data_source_uuids: [qa.uuid],
    });
    const session = await h.client.createSession(bot.uuid, {
      initial_variables: { platform: 'discord' },
    });
    const first = (
      await readPieces(
        await h.client.streamMessage(session.uuid, { query: 'When does the lighthouse shine?' }),
      )
    ).join('');
    await h.close();

    h = await startHarness({ storeUrl });
    try {
      expect(await h.client.listChatbots()).toEqual([
        expect.objectContaining({ uuid: bot.uuid, name: 'Durable' }),
      ]);
      expect((await h.client.listChatbots())[0]?.meta.rate_limit).toEqual([5, 60]);
      const agents = await h.client.listAgents(bot.uuid);
      expect(agents.map((a) => a.uuid)).toEqual([general!.uuid, helper.uuid]);
      expect(agents[0]?.prompt).toBe('Answer like a lighthouse keeper.');
      expect(await h.client.listSourceTags(bot.uuid)).toEqual([
        expect.objectContaining({ uuid: tag.uuid, data_source_uuids: [qa.uuid] }),
      ]);
      const messages = await h.client.listMessages(session.uuid);
      expect(messages).toHaveLength(1);
      expect(messages[0]?.response).toBe(first);
      // The index survived: the renamed upload answers and is cited under its new title.
      const text = (
        await readPieces(
          await h.client.streamMessage(session.uuid, { query: 'When is the lamp cleaned?' }),
        )
      ).join('');
      expect(text).toContain('Sunday morning');
      const [, second] = await h.client.listMessages(session.uuid);
      expect(Object.values(second!.cite_data).map((c) => c.title)).toContain('Lamp care');
      // Duplicate detection survived as well.
      await expect(
        h.client.uploadSource(bot.uuid, { file, file_name: 'again.txt' }),
      ).rejects.toSatisfy(
        (e) =>
          isServiceError(e, 'conflict') &&
          e.existing?.uuid === upload.uuid &&
          e.existing.title === 'Lamp care',
      );
    } finally {
      await h.close();
    }
  });

  it('resumes a URL fetch that was pending when the service stopped', async () => {
    const storeUrl = `sqlite://${join(dir, 'resume.sqlite')}`;
    let answerNow = false;
    const held: (() => void)[] = [];
    let requested!: () => void;
    const firstRequest = new Promise<void>((resolve) => (requested = resolve));
    const page = html(
      '<html><head><title>Tides</title></head><body><p>High tide comes twice a day.</p></body></html>',
    );
    const site: Site = await startSite({
      '/tides': (req, res) => {
        requested();
        if (answerNow) return page(req, res);
        held.push(() => res.destroy());
      },
    });
    try {
      let h = await startHarness({ storeUrl });
      const bot = await h.client.createChatbot({ name: 'Tides' });
      const added = await h.client.addUrlSource(bot.uuid, { url: `${site.url}/tides` });
      await firstRequest; // the fetch is under way…
      await h.close(); // …when the service stops
      held.forEach((drop) => drop());
      answerNow = true;

      h = await startHarness({ storeUrl });
      try {
        await h.service.drain();
        const renamed = await h.client.renameSource(added.uuid, { title: 'Tide tables' });
        expect(renamed.status).toBe('success');
        expect(renamed.tokens).toBeGreaterThan(0);
        const session = await h.client.createSession(bot.uuid);
        const text = (
          await readPieces(
            await h.client.streamMessage(session.uuid, { query: 'How often is high tide?' }),
          )
        ).join('');
        expect(text).toContain('twice a day');
      } finally {
        await h.close();
      }
    } finally {
      await site.close();
    }
  });
});
