import { describe, expect, it } from 'vitest';
import {
  blendWithTopic,
  isFollowUp,
  searchInConversation,
  topicOf,
} from '../../../src/local-service/knowledge/follow-up.js';
import {
  composeAnswer,
  type KnowledgeIndex,
  type Passage,
} from '../../../src/local-service/knowledge/index.js';
import { testIndex } from './test-index.js';
import { demoSources } from './demo-corpus.js';

const BOT = 'bot';

async function demoIndex(): Promise<KnowledgeIndex> {
  const index = testIndex();
  for (const source of demoSources(BOT)) await index.add(source);
  return index;
}

/** Retrieval and the extractive answer for `query`, after the questions in `before`. */
async function ask(index: KnowledgeIndex, query: string, before: string[] = []) {
  const history = before.map((q) => ({ query: q, response: '…' }));
  const passages = await searchInConversation(index, BOT, query, history, { limit: 5 });
  return { passages, answer: composeAnswer(query, passages, { citations: false, history }).text };
}

describe('isFollowUp', () => {
  it.each([
    'How do I install it?',
    'and for Discord?',
    'What about Discord?',
    'how about the refunds',
    'Which one is faster?',
    'How do I fix that?',
    "Is it free? And what's its licence?",
    'Do they run on Node 18?',
    'install?',
    'Why?',
  ])('"%s" leans on the conversation', (query) => {
    expect(isFollowUp(query)).toBe(true);
  });

  it.each([
    'How do I run the tests?',
    'How do I connect chatbridge to Slack?',
    'What is chatbridge?',
    'What is the variable that sets the port?',
    'Is there a way to change the port?',
    'Where are refunds explained in the docs?',
  ])('"%s" stands alone', (query) => {
    expect(isFollowUp(query)).toBe(false);
  });
});

describe('topicOf', () => {
  const turns = (...queries: string[]) => queries.map((query) => ({ query }));

  it('is nothing for a question that stands alone, or without history', () => {
    expect(topicOf('How do I run the tests?', turns('How do I connect it to Slack?'))).toBe(
      undefined,
    );
    expect(topicOf('How do I install it?', [])).toBe(undefined);
  });

  it('is the latest question, and the ones it continued, back to the one that set the topic', () => {
    const history = turns('What is chatbridge?', 'How do I connect chatbridge to Slack?');
    expect(topicOf('and for Discord?', history)).toBe('How do I connect chatbridge to Slack?');
    expect(topicOf('and for Teams?', [...history, { query: 'and for Discord?' }])).toBe(
      'How do I connect chatbridge to Slack?\nand for Discord?',
    );
  });
});

describe('blendWithTopic', () => {
  const passage = (sourceUuid: string, score: number): Passage => ({
    sourceUuid,
    title: sourceUuid,
    fileName: sourceUuid,
    type: 'upload',
    chunkIndex: 0,
    text: sourceUuid,
    score,
  });

  it('lets the topic break near-ties but never outrank what the question found', () => {
    const own = [passage('a', 10), passage('b', 9), passage('c', 4)];
    // With the topic, c gains a lot and b a little; d matches the topic only.
    const widened = [passage('c', 30), passage('d', 20), passage('b', 11), passage('a', 10)];
    const blended = blendWithTopic(own, widened, 5, false);
    expect(blended.map((p) => [p.sourceUuid, p.score])).toEqual([
      ['b', 11],
      ['a', 10],
      ['c', 6], // lifted by at most half its own score
    ]);
  });

  it('bounds a passage past the question\u2019s own cut by the last score it kept', () => {
    const own = [passage('a', 10), passage('b', 3)];
    const blended = blendWithTopic(own, [passage('x', 12), passage('a', 10)], 5, true);
    expect(blended.map((p) => [p.sourceUuid, p.score])).toEqual([
      ['a', 10],
      ['x', 4.5],
      ['b', 3],
    ]);
  });
});

describe('a question in a conversation', () => {
  const pairs: [string, string][] = [
    ['How do I connect chatbridge to Slack?', 'How do I run the tests?'],
    ['What is chatbridge?', 'How do I run the tests?'],
    ['How do I connect chatbridge to Discord?', 'How long do refunds take?'],
    ['How do I run the tests?', 'How do I connect chatbridge to Slack?'],
    ['How long do refunds take?', 'How do I install chatbridge?'],
  ];

  it.each(pairs)('after "%s", "%s" is answered as if asked fresh', async (before, query) => {
    const index = await demoIndex();
    const fresh = await ask(index, query);
    const after = await ask(index, query, [before]);
    expect(after.passages.map((p) => [p.sourceUuid, p.chunkIndex])).toEqual(
      fresh.passages.map((p) => [p.sourceUuid, p.chunkIndex]),
    );
    expect(after.answer).toBe(fresh.answer);
  });

  it('answers "How do I run the tests?" with npm test, not the sentence about fakes', async () => {
    const index = await demoIndex();
    const { answer } = await ask(index, 'How do I run the tests?', [
      'How do I connect chatbridge to Slack?',
    ]);
    expect(answer).toMatch(/^According to README\.md: To run the tests/);
    expect(answer).toContain('npm test');
    expect(answer).not.toContain('fakes');
  });

  it('still reads a follow-up with the question before it', async () => {
    const index = await demoIndex();
    // Alone, "it" could be either product (Aurora's shorter line wins)…
    const alone = await ask(index, 'How do I install it?');
    expect(alone.answer).toMatch(/^According to aurora\.md: Install Aurora with pip\./);
    // …after a question about one of them, it is that one.
    const chatbridge = await ask(index, 'How do I install it?', ['What is chatbridge?']);
    expect(chatbridge.passages[0]?.sourceUuid).toBe('readme');
    expect(chatbridge.answer).toMatch(/^According to README\.md: Install it with `npm install`/);
    const aurora = await ask(index, 'How do I install it?', ['What is Aurora?']);
    expect(aurora.answer).toMatch(/^According to aurora\.md: Install Aurora with pip\./);
  });

  it('reads "and for Discord?" as the Slack question asked for Discord', async () => {
    const index = await demoIndex();
    const alone = await ask(index, 'and for Discord?');
    expect(alone.answer).toMatch(/^According to aurora\.md: Aurora posts photos to Discord\./);
    const after = await ask(index, 'and for Discord?', ['How do I connect chatbridge to Slack?']);
    expect(after.passages[0]?.sourceUuid).toBe('readme');
    expect(after.answer).toMatch(/^According to README\.md: /);
    expect(after.answer).toContain('To connect chatbridge to Discord, set `DISCORD_TOKEN`');
    expect(after.answer).not.toContain('Aurora');
  });

  it('follows a chain of follow-ups back to the question that set the topic', async () => {
    const index = await demoIndex();
    const { answer } = await ask(index, 'How do I install it?', [
      'What is chatbridge?',
      'and for Discord?',
    ]);
    expect(answer).toMatch(/^According to README\.md: Install it with `npm install`/);
  });
});
