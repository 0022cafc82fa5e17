// A question asked the way a Q&A pair asks it gets the pair's whole answer: not cut to its first
// sentence, not the question echoed back, also when the answer spans several chunks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, readPieces, startHarness } from './helpers.js';

const NEBULA = Array.from(
  { length: 16 },
  (_, i) =>
    `Part ${i + 1} of the Nebula plan: ${'unlimited seats, priority routing and a named engineer '.repeat(2)}for every workspace.`,
).join('\n\n');

let h: Harness;
let chatbot: string;
beforeAll(async () => {
  h = await startHarness();
  chatbot = (await h.client.createChatbot({ name: 'Plans', show_citations: true })).uuid;
  await h.client.addQaSource(chatbot, {
    question: 'What does the Nebula plan include?',
    answer: NEBULA,
  });
  await h.client.addQaSource(chatbot, {
    question: 'How much does the Comet plan cost?',
    answer: 'The Comet plan costs 12 euros a month. It is billed yearly.',
  });
});
afterAll(() => h.close());

/** The whole answer, then the marker of the pair's passage that was found (any of its chunks). */
const whole = (answer: string) =>
  expect.stringMatching(new RegExp(`^${escape(answer)} \\[1\\.\\d+\\]$`));
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function ask(query: string) {
  const session = await h.client.createSession(chatbot);
  const text = (await readPieces(await h.client.streamMessage(session.uuid, { query }))).join('');
  const [stored] = await h.client.listMessages(session.uuid);
  return { text, stored: stored! };
}

describe('a Q&A pair asked', () => {
  it('exactly, with a 2,500-character answer, answers with all of it and cites the pair', async () => {
    expect(NEBULA.length).toBeGreaterThan(2_500);
    const { text, stored } = await ask('What does the Nebula plan include?');
    expect(text).toEqual(whole(NEBULA));
    expect(Object.values(stored.cite_data)).toEqual([
      expect.objectContaining({ type: 'qa', title: 'What does the Nebula plan include?' }),
    ]);
  });

  it('in other words of the same question, answers with all of it', async () => {
    expect((await ask('what is included in the nebula plan')).text).toEqual(whole(NEBULA));
    expect((await ask('How much is the Comet plan cost?')).text).toBe(
      'The Comet plan costs 12 euros a month. It is billed yearly. [1.1]',
    );
  });

  it('found first and holding most of the question, answers it whole', async () => {
    const { text } = await ask('Which plan has a named engineer and priority routing?');
    expect(text).toEqual(whole(NEBULA));
  });

  it('in words that are all common ones ("Who are you?"), answers with it', async () => {
    await h.client.addQaSource(chatbot, {
      question: 'Who are you?',
      answer: 'I am Plans, the assistant of the plans team.',
    });
    expect((await ask('Who are you?')).text).toBe(
      'I am Plans, the assistant of the plans team. [1.1]',
    );
    expect((await ask('who ARE you')).text).toBe(
      'I am Plans, the assistant of the plans team. [1.1]',
    );
  });

  it('is not taken for a different question that shares a word', async () => {
    const { text } = await ask('Which plan do students get for free?');
    expect(text).not.toEqual(whole(NEBULA));
  });

  it('gives no whole pair for a question none answers', async () => {
    await h.client.addQaSource(chatbot, {
      question: 'Can I change the reminder schedule?',
      answer: 'Yes. The default schedule sends a note 3 days before the due date.',
    });
    expect((await ask('how do I pause my subscription while I travel?')).text).toBe(
      'I could not find that in my sources.',
    );
  });
});
