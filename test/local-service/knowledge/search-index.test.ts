import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type SourceText } from '../../../src/local-service/knowledge/index.js';
import { testIndex } from './test-index.js';

const BOT = 'bot-1';
const source = (
  uuid: string,
  title: string,
  text: string,
  extra: Partial<SourceText> = {},
): SourceText => ({
  uuid,
  chatbotUuid: BOT,
  title,
  type: 'upload',
  fileName: `${uuid}.md`,
  text,
  ...extra,
});

const INSTALL = source(
  'install',
  'Installation guide',
  '# Installing chatbridge\n\nRun npm install chatbridge to install the package. Then start the bridge with npx chatbridge start.\n\n' +
    '## Requirements\n\nNode 20 or newer is required.',
);
const PRICING = source(
  'pricing',
  'Pricing',
  'The basic plan costs 10 dollars a month. The pro plan costs 25 dollars a month and adds priority support.',
);
const REFUNDS = source(
  'refunds',
  'Refund policy',
  'Refunds are issued within 30 days of purchase. Write to support to ask for a refund.',
  {
    type: 'url',
    link: 'https://example.com/refunds',
  },
);

async function memoryIndex() {
  const index = testIndex();
  for (const s of [INSTALL, PRICING, REFUNDS]) await index.add(s);
  return { index };
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('knowledge index', () => {
  it('reports the tokens and chunks it indexed', async () => {
    const index = testIndex();
    expect(await index.add(PRICING)).toEqual({
      tokens: Math.ceil(PRICING.text.length / 4),
      chunks: 1,
    });
  });

  it('ranks the source that answers first and fills every passage field', async () => {
    const { index } = await memoryIndex();
    const [top] = await index.search(BOT, 'How do I install it?');
    expect(top).toMatchObject({
      sourceUuid: 'install',
      title: 'Installation guide',
      fileName: 'install.md',
      type: 'upload',
      chunkIndex: 0,
    });
    expect(top?.text).toContain('npm install chatbridge');
    expect((await index.search(BOT, 'how much does the pro plan cost'))[0]?.sourceUuid).toBe(
      'pricing',
    );
    const refund = (await index.search(BOT, 'can I get my money refunded?'))[0];
    expect(refund).toMatchObject({
      sourceUuid: 'refunds',
      link: 'https://example.com/refunds',
      type: 'url',
    });
    const scores = (await index.search(BOT, 'plan support refund')).map((p) => p.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('tolerates a typo and a partial word', async () => {
    const { index } = await memoryIndex();
    expect((await index.search(BOT, 'refnd'))[0]?.sourceUuid).toBe('refunds');
    expect((await index.search(BOT, 'requir'))[0]?.sourceUuid).toBe('install');
  });

  it('reads the opening of a document whose title the question names, however often its sections say the name', async () => {
    const index = testIndex();
    const sections = Array.from(
      { length: 30 },
      (_, i) => `## Part ${i}\n\nSet zorblet ${i} in zorblet.conf.`,
    );
    const opening =
      'Zorblet is a small tool that keeps the settings of many servers in one place, ' +
      'checks them before they are used, and tells you which server differs from the rest.';
    await index.add(
      source('zorblet', 'zorblet', ['# Zorblet', '', opening, '', ...sections].join('\n\n')),
    );
    const found = await index.search(BOT, 'what is zorblet?', { limit: 40 });
    expect(found.map((p) => p.window)).toContain(opening);
  });

  it('searches only the sources it is given, and only the chatbot asked', async () => {
    const { index } = await memoryIndex();
    const filtered = await index.search(BOT, 'install support', {
      sourceUuids: ['pricing', 'refunds'],
    });
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((p) => p.sourceUuid !== 'install')).toBe(true);
    expect(await index.search(BOT, 'install', { sourceUuids: [] })).toEqual([]);
    expect(await index.search('other-bot', 'install')).toEqual([]);
    // Only common words: searched by those that tell chunks apart; none does here.
    const everywhere = testIndex();
    await everywhere.add(source('a', 'A', 'The first one.'));
    await everywhere.add(source('b', 'B', 'The second one.'));
    expect(await everywhere.search(BOT, 'the one')).toEqual([]);
    expect((await index.search(BOT, 'what about a month?'))[0]?.sourceUuid).toBe('pricing');
    expect(await index.search(BOT, 'plan', { limit: 1 })).toHaveLength(1);
  });

  it('searches a follow-up with the previous question, whose words weigh less', async () => {
    const { index } = await memoryIndex();
    // "support" is in two sources; the previous question decides which one the follow-up means.
    const aboutPlans = await index.search(BOT, 'and is there support?', {
      previous: { query: 'how much is the pro plan' },
    });
    const aboutRefunds = await index.search(BOT, 'and is there support?', {
      previous: { query: 'refund for my purchase' },
    });
    expect(aboutPlans[0]?.sourceUuid).toBe('pricing');
    expect(aboutRefunds[0]?.sourceUuid).toBe('refunds');
    // The question's own words outweigh the previous question's.
    const own = await index.search(BOT, 'install', {
      previous: { query: 'refund refund purchase' },
    });
    expect(own[0]?.sourceUuid).toBe('install');
  });

  it('breaks a tie by the source the previous answer cited', async () => {
    const index = testIndex();
    await index.add(source('a', 'A', 'The limit is ten requests.'));
    await index.add(source('b', 'B', 'The limit is ten requests.'));
    for (const cited of ['a', 'b']) {
      const [top] = await index.search(BOT, 'what is the limit', {
        previous: { query: 'tell me more', sources: [cited] },
      });
      expect(top?.sourceUuid).toBe(cited);
    }
  });

  it('counts a heading with its section, also for a chunk further down the section', async () => {
    const index = testIndex();
    const filler = Array.from({ length: 60 }, (_, i) => `Plain filler line ${i} here.`).join(' ');
    await index.add(
      source(
        'guide',
        'Guide',
        `## Connecting Slack and Discord\n\n${filler}\n\nSet the bot token and start the bridge.`,
      ),
    );
    await index.add(source('other', 'Other', 'Slack threads are answered by the bridge in Slack.'));
    const hits = await index.search(BOT, 'how do I connect it to Slack');
    expect(hits[0]?.sourceUuid).toBe('guide');
    const tail = (await index.search(BOT, 'connect bot token')).find((p) =>
      p.text.includes('Set the bot token'),
    );
    expect(tail).toMatchObject({ sourceUuid: 'guide', section: 'Connecting Slack and Discord' });
    expect(tail!.chunkIndex).toBeGreaterThan(0);
  });

  it('replaces the earlier text of a source when it is added again', async () => {
    const { index } = await memoryIndex();
    await index.add({ ...PRICING, text: 'Everything is free during the beta.' });
    expect(await index.search(BOT, 'dollars')).toEqual([]);
    expect((await index.search(BOT, 'free beta'))[0]?.sourceUuid).toBe('pricing');
  });

  it('renames a source in results and in what is searched', async () => {
    const { index } = await memoryIndex();
    await index.rename('pricing', 'Subscription handbook');
    const [hit] = await index.search(BOT, 'handbook');
    expect(hit).toMatchObject({ sourceUuid: 'pricing', title: 'Subscription handbook' });
    expect((await index.search(BOT, 'pro plan'))[0]?.title).toBe('Subscription handbook');
    await index.rename('unknown-source', 'whatever'); // nothing indexed yet: no error
  });

  it('finds the same passages after a restart on a SQLite file, renames included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kn-index-'));
    dirs.push(dir);
    const url = `sqlite://${join(dir, 'store.sqlite')}`;
    const index = testIndex(url);
    for (const s of [INSTALL, PRICING, REFUNDS]) await index.add(s);
    await index.rename('refunds', 'Money back');
    const before = await index.search(BOT, 'refund within 30 days');
    await index.close();

    const reopened = testIndex(url);
    const after = await reopened.search(BOT, 'refund within 30 days');
    expect(after).toEqual(before);
    expect(after[0]).toMatchObject({
      sourceUuid: 'refunds',
      title: 'Money back',
      link: 'https://example.com/refunds',
    });
    await reopened.close();
  });

  it('reads a misspelling only as a topic word with its first letter, not as any word one edit away', async () => {
    const index = testIndex();
    await index.add(
      source('chat', 'Notes', 'That is the plan: a retention of 30 days, in our notation.'),
    );
    // "chat" is one edit from "that" (a stopword), "rotate" one from "notate" (another first
    // letter): words the source does not hold, not misspellings of words it does.
    expect(await index.search(BOT, 'chat')).toEqual([]);
    expect(await index.search(BOT, 'rotate')).toEqual([]);
    // "retension" is one edit from "retention", first letter kept.
    expect((await index.search(BOT, 'retension')).map((h) => h.sourceUuid)).toEqual(['chat']);
    await index.close();
  });

  it('counts words and reads spellings again once the store changes, here or in another process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kn-index-'));
    dirs.push(dir);
    const url = `sqlite://${join(dir, 'store.sqlite')}`;
    const index = testIndex(url);
    await index.add(PRICING);
    expect(await index.search(BOT, 'quokke')).toEqual([]); // no word one edit away
    expect(await index.search(BOT, 'retension')).toEqual([]);
    // Another connection (another process) adds a source holding "retention".
    const other = testIndex(url);
    await other.add(
      source('retention', 'Retention', 'Logs are kept under a retention of 30 days.'),
    );
    await other.close();
    expect((await index.search(BOT, 'retension')).map((h) => h.sourceUuid)).toEqual(['retention']);
    // This connection adds one holding "quokka".
    await index.add(source('quokka', 'Quokka', 'The quokka plan is free for small teams.'));
    expect((await index.search(BOT, 'quokke')).map((h) => h.sourceUuid)).toEqual(['quokka']);
    await index.close();
  });

  it('loses no source when adds race the first search', async () => {
    const index = testIndex();
    const adds = Array.from({ length: 20 }, (_, i) =>
      index.add(source(`s${i}`, `Doc ${i}`, `Unique word zebra${i} lives here.`)),
    );
    const searches = Array.from({ length: 5 }, () => index.search(BOT, 'zebra0'));
    await Promise.all([...adds, ...searches]);
    for (let i = 0; i < 20; i++) {
      const hits = await index.search(BOT, `zebra${i}`);
      expect(hits.map((h) => h.sourceUuid)).toEqual([`s${i}`]);
    }
  });
});
