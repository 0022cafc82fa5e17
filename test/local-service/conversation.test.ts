// Through the HTTP surface: the session's earlier messages take part in a follow-up only; a
// question that stands alone is answered exactly as in a fresh session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, readPieces, startHarness } from './helpers.js';
import { demoSources } from './knowledge/demo-corpus.js';

let h: Harness;
let chatbot: string;
beforeAll(async () => {
  h = await startHarness();
  chatbot = (await h.client.createChatbot({ name: 'Demo-like', show_citations: false })).uuid;
  for (const source of demoSources(chatbot)) {
    await h.client.uploadSource(chatbot, {
      file: new TextEncoder().encode(source.text),
      file_name: source.title,
      content_type: 'text/markdown',
    });
  }
});
afterAll(() => h.close());

/** Asks the questions in one new session; the answers in order. */
async function converse(...queries: string[]): Promise<string[]> {
  const session = await h.client.createSession(chatbot);
  const answers: string[] = [];
  for (const query of queries) {
    answers.push(
      (await readPieces(await h.client.streamMessage(session.uuid, { query }))).join(''),
    );
  }
  return answers;
}

describe('a session', () => {
  it('answers the demo\u2019s "How do I run the tests?" after the Slack question with npm test', async () => {
    const [, tests] = await converse(
      'How do I connect chatbridge to Slack?',
      'How do I run the tests?',
    );
    const [fresh] = await converse('How do I run the tests?');
    expect(tests).toBe(fresh);
    expect(tests).toMatch(/^According to README\.md: To run the tests/);
    expect(tests).toContain('npm test');
    expect(tests).not.toContain('fakes');
  });

  it.each([
    ['What is chatbridge?', 'How long do refunds take?'],
    ['How do I connect chatbridge to Discord?', 'How do I install chatbridge?'],
    ['How long do refunds take?', 'How do I connect chatbridge to Slack?'],
  ])('after "%s", answers "%s" as a fresh session does', async (before, query) => {
    const [, after] = await converse(before, query);
    const [fresh] = await converse(query);
    expect(after).toBe(fresh);
  });

  it('reads a follow-up with the messages before it', async () => {
    const [, install] = await converse('What is chatbridge?', 'How do I install it?');
    expect(install).toMatch(/^According to README\.md: Install it with `npm install`/);
    const [, discord] = await converse('How do I connect chatbridge to Slack?', 'and for Discord?');
    expect(discord).toContain('To connect chatbridge to Discord');
    expect(discord).not.toContain('Aurora');
    // Without the earlier message, the same words mean the other product.
    const [alone] = await converse('How do I install it?');
    expect(alone).toMatch(/^According to aurora\.md/);
  });
});
