import { describe, expect, it } from 'vitest';
import {
  MAX_QUESTION_TERMS,
  QueryPlanner,
} from '../../../src/local-service/knowledge/fts-query.js';
import { joinedPairs } from '../../../src/local-service/knowledge/terms.js';
import { testIndex } from './test-index.js';

const BOT = 'bot-1';
/** Distinct made-up words, each of them in the index. */
const words = (count: number) => Array.from({ length: count }, (_, i) => `zq${i.toString(36)}word`);

describe('query planner', () => {
  it('reads at most MAX_QUESTION_TERMS words of a very long question (each costs index reads)', async () => {
    const index = testIndex();
    const vocabulary = words(2_000);
    await index.add({
      uuid: 'all-words',
      chatbotUuid: BOT,
      title: 'Word list',
      type: 'upload',
      fileName: 'words.md',
      text: vocabulary.join(' '),
    });
    const planner = new QueryPlanner(index.db);
    const clauses = planner.clauses(vocabulary.join(' '));
    expect(clauses.length).toBe(MAX_QUESTION_TERMS);
    // The first words are the ones kept, and the search still answers from them.
    expect(clauses[0]!.expr).toBe('"zq0word"');
    const found = await index.search(BOT, vocabulary.join(' '));
    expect(found.map((p) => p.sourceUuid)).toEqual(['all-words']);
    await index.close();
  });
});

describe('words a question writes apart', () => {
  it('finds the word the sources write as one ("back up": backup), beside the words apart', async () => {
    const index = testIndex();
    const doc = (uuid: string, text: string) =>
      index.add({ uuid, chatbotUuid: BOT, title: uuid, type: 'upload', fileName: 'a.md', text });
    await doc('backup', 'Call db.backup() to copy the database while it is in use.');
    await doc('running', 'The database keeps running while the app is up and we are back.');
    const planner = new QueryPlanner(index.db);
    const exprs = (text: string) => planner.clauses(text).map((clause) => clause.expr);
    expect(exprs('how do I back up the database')).toEqual([
      '"backup"',
      '"back"',
      expect.stringMatching(/databas/),
    ]);
    const found = await index.search(BOT, 'how do I back up the database');
    expect(found[0]!.sourceUuid).toBe('backup');
    // Two words that each mean something are not joined ("permessage deflate").
    await doc('words', 'permessagedeflate');
    expect(exprs('permessage deflate').join(' ')).not.toContain('permessagedeflate');
    await index.close();
  });
});

describe('accents written as combining marks', () => {
  const text = (words: string) => ({
    uuid: 'accents',
    chatbotUuid: BOT,
    title: 'Accents',
    type: 'upload',
    fileName: 'accents.md',
    text: words,
  });

  it('finds a composed word by its decomposed spelling (macOS file names, some keyboards)', async () => {
    const index = testIndex();
    await index.add(text('The résumé of a naïve café owner.'));
    const found = await index.search(BOT, 'nai\u0308ve re\u0301sume\u0301');
    expect(found.map((p) => p.sourceUuid)).toEqual(['accents']);
    await index.close();
  });

  it('finds a decomposed word by its composed spelling', async () => {
    const index = testIndex();
    await index.add(text('Our office is in Zu\u0308rich, by the lake.'));
    const found = await index.search(BOT, 'Zürich');
    expect(found.map((p) => p.sourceUuid)).toEqual(['accents']);
    await index.close();
  });
});

describe('spellings of a mistyped word', () => {
  it("come from the chatbot's own words, however many near ones other chatbots' sources hold", async () => {
    const index = testIndex();
    // Another chatbot's sources hold many words one edit from "refnd", in many chunks each.
    for (let i = 0; i < 6; i++) {
      await index.add({
        uuid: `other-${i}`,
        chatbotUuid: 'other-bot',
        title: `Other ${i}`,
        type: 'upload',
        fileName: `other-${i}.md`,
        text: 'refind refend refand refnds reknd rebnd',
      });
    }
    await index.add({
      uuid: 'policy',
      chatbotUuid: BOT,
      title: 'Policy',
      type: 'upload',
      fileName: 'policy.md',
      text: 'A refund is paid within 30 days.',
    });
    const found = await index.search(BOT, 'refnd');
    expect(found.map((p) => p.sourceUuid)).toEqual(['policy']);
    await index.close();
  });

  it("are tried when only other chatbots' sources hold the mistyped word itself", async () => {
    const index = testIndex();
    await index.add({
      uuid: 'typo',
      chatbotUuid: 'other-bot',
      title: 'Other',
      type: 'upload',
      fileName: 'other.md',
      text: 'We refnd nothing.',
    });
    await index.add({
      uuid: 'policy',
      chatbotUuid: BOT,
      title: 'Policy',
      type: 'upload',
      fileName: 'policy.md',
      text: 'A refund is paid within 30 days.',
    });
    const found = await index.search(BOT, 'refnd');
    expect(found.map((p) => p.sourceUuid)).toEqual(['policy']);
    await index.close();
  });
});

describe('joinedPairs', () => {
  it('joins a word with the particle after it, never a pronoun with its noun', () => {
    expect(
      joinedPairs('how do I back up my .env file, log in and read only').map((p) => p.joined),
    ).toEqual(['backup', 'login', 'readonly']);
  });
});
