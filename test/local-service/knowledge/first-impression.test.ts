// The first thing a new user does: `npm start`, then the questions the README suggests, asked
// of the demo chatbot's own corpus (README.md and docs/*.md, as src/embedded.ts uploads them).
// Each gets a correct answer from the README, cited.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/local-service/knowledge/index.js';
import { type TestIndex, testIndex } from './test-index.js';

const ROOT = join(import.meta.dirname, '../../..');
let index: TestIndex;

beforeAll(async () => {
  index = testIndex();
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  for (const path of ['README.md', ...docs.map((name) => `docs/${name}`)]) {
    const text = readFileSync(join(ROOT, path), 'utf8');
    const title = path.replace('/', '-');
    await index.add({
      uuid: path,
      chatbotUuid: 'demo',
      title,
      type: 'upload',
      fileName: title,
      text,
    });
  }
});
afterAll(() => index.close());

async function ask(query: string) {
  const passages = await index.search('demo', query, { limit: 8 });
  return composeAnswer(query, passages, { citations: true });
}

describe('the README’s example questions, asked of the demo corpus', () => {
  it('answers "What is chatbridge?" with the README’s opening: Slack and Discord', async () => {
    const answer = await ask('What is chatbridge?');
    expect(answer.text).toMatch(
      /^According to README\.md \[1\.1\]: chatbridge puts a RAG chatbot into Slack workspaces and Discord servers\./,
    );
    for (const cited of Object.values(answer.citeData)) expect(cited.title).toBe('README.md');
  });

  it('answers the README’s other questions from the README, with what to run', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const suggested = [...readme.matchAll(/(?:Ask it "|printf ')([^"']+)/g)].flatMap((m) =>
      m[1]!.split('\\n').filter(Boolean),
    );
    expect(suggested).toEqual(
      expect.arrayContaining(['How do I connect chatbridge to Slack?', 'How do I run the tests?']),
    );
    const expected: Record<string, string> = {
      'What is chatbridge?': 'Discord',
      'How do I connect chatbridge to Slack?': 'SLACK_BOT_TOKEN',
      'How do I run the tests?': 'npm test',
    };
    for (const question of suggested) {
      const answer = await ask(question);
      expect(answer.text, question).toContain(expected[question]);
      expect(Object.values(answer.citeData)[0]?.title, question).toBe('README.md');
    }
  });
});
