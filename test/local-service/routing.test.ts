import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/service/api.js';
import { fit, isHumanRequest } from '../../src/local-service/agent-router.js';
import { type Harness, readPieces, startHarness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function ask(client: ServiceClient, sessionUuid: string, query: string) {
  const text = (await readPieces(await client.streamMessage(sessionUuid, { query }))).join('');
  const messages = await client.listMessages(sessionUuid);
  const message = messages[messages.length - 1]!;
  expect(message.response).toBe(text);
  return {
    text,
    meta: JSON.parse(message.meta_json) as { agent_uuid: string | null; tags: { name: string }[] },
  };
}

async function botWithSources() {
  const bot = await h.client.createChatbot({ name: 'Routing' });
  const password = await h.client.addQaSource(bot.uuid, {
    question: 'How do I reset my password?',
    answer: 'Open Settings, choose Security and press Reset password.',
  });
  const billing = await h.client.addQaSource(bot.uuid, {
    question: 'When are invoices sent?',
    answer: 'Invoices are sent by email on the first day of each month.',
  });
  const [general] = await h.client.listAgents(bot.uuid);
  return { bot, password, billing, general: general! };
}

describe('which agent answers', () => {
  it('hands a request for a human to an enabled human-escalation agent', async () => {
    const { bot, general } = await botWithSources();
    const human = await h.client.createAgent(bot.uuid, { name: 'Staff', type: 'human-escalation' });
    const session = await h.client.createSession(bot.uuid);
    // Disabled: General Q&A answers.
    expect(
      (await ask(h.client, session.uuid, 'Can I talk to a human please?')).meta.agent_uuid,
    ).toBe(general.uuid);
    await h.client.updateAgent(human.uuid, {
      enabled: true,
      human_escalation_settings: { human_requested_message: 'A colleague will join shortly.' },
    });
    const answer = await ask(h.client, session.uuid, 'Can I talk to a human please?');
    expect(answer.text).toBe('A colleague will join shortly.');
    expect(answer.meta.agent_uuid).toBe(human.uuid);
  });

  it('answers with the default message of a fitting pre-canned or spam-defense agent', async () => {
    const { bot, general } = await botWithSources();
    const hours = await h.client.createAgent(bot.uuid, {
      name: 'Opening hours',
      type: 'pre-canned',
      description: 'The opening hours of the shop',
      meta: { default_message: 'We are open from 9 to 17, Monday to Friday.' },
    });
    const spam = await h.client.createAgent(bot.uuid, {
      name: 'Spam guard',
      type: 'spam-defense',
      description: 'Crypto investment offers and casino promotions',
      meta: { default_message: 'No, thank you.' },
    });
    await h.client.updateAgent(hours.uuid, { enabled: true });
    await h.client.updateAgent(spam.uuid, { enabled: true });
    const session = await h.client.createSession(bot.uuid);
    const opening = await ask(h.client, session.uuid, 'What are your opening hours?');
    expect(opening).toMatchObject({ text: 'We are open from 9 to 17, Monday to Friday.' });
    expect(opening.meta.agent_uuid).toBe(hours.uuid);
    const offer = await ask(h.client, session.uuid, 'Exclusive crypto investment offer for you');
    expect(offer.text).toBe('No, thank you.');
    const normal = await ask(h.client, session.uuid, 'How do I reset my password?');
    expect(normal.meta.agent_uuid).toBe(general.uuid);
    expect(normal.text).toContain('Reset password');
  });

  it('records the tags of enabled background agents whose criteria match', async () => {
    const { bot } = await botWithSources();
    const tagger = await h.client.createAgent(bot.uuid, { name: 'Tagger', type: 'background' });
    const tags = [
      { name: 'billing', color: '#ff0000', criteria: 'invoices, refunds or payments' },
      { name: 'security', color: '#00ff00', criteria: 'passwords and logins' },
    ];
    await h.client.updateAgent(tagger.uuid, { tags });
    const session = await h.client.createSession(bot.uuid);
    expect((await ask(h.client, session.uuid, 'When are invoices sent?')).meta.tags).toEqual([]); // disabled
    await h.client.updateAgent(tagger.uuid, { enabled: true });
    const tagged = await ask(h.client, session.uuid, 'When are invoices sent?');
    expect(tagged.meta.tags.map((t) => t.name)).toEqual(['billing']);
    expect(tagged.text).toContain('first day of each month'); // a background agent never answers
    expect(
      (await ask(h.client, session.uuid, 'I forgot my password')).meta.tags.map((t) => t.name),
    ).toEqual(['security']);
  });

  it('lets the user-facing agent whose sources and description fit best answer', async () => {
    const { bot, billing, general } = await botWithSources();
    const biller = await h.client.createAgent(bot.uuid, {
      name: 'Billing',
      type: 'user-facing',
      description: 'Answers questions about invoices',
    });
    await h.client.updateAgent(biller.uuid, { enabled: true, data_source_uuids: [billing.uuid] });
    const session = await h.client.createSession(bot.uuid);
    expect((await ask(h.client, session.uuid, 'When are invoices sent?')).meta.agent_uuid).toBe(
      biller.uuid,
    );
    const other = await ask(h.client, session.uuid, 'How do I reset my password?');
    expect(other.meta.agent_uuid).toBe(general.uuid);
    expect(other.text).toContain('Reset password');
  });

  it('keeps a sticky agent on the session it answered', async () => {
    const { bot, general } = await botWithSources();
    const manual = await h.client.createAgent(bot.uuid, {
      name: 'Manual',
      type: 'user-facing',
      description: 'Explains the product manual',
      meta: { use_all_sources: true, stickness: 1 },
    });
    await h.client.updateAgent(manual.uuid, { enabled: true });
    const sticky = await h.client.createSession(bot.uuid);
    expect(
      (await ask(h.client, sticky.uuid, 'What does the manual say about passwords?')).meta
        .agent_uuid,
    ).toBe(manual.uuid);
    expect((await ask(h.client, sticky.uuid, 'When are invoices sent?')).meta.agent_uuid).toBe(
      manual.uuid,
    );
    const fresh = await h.client.createSession(bot.uuid);
    expect((await ask(h.client, fresh.uuid, 'When are invoices sent?')).meta.agent_uuid).toBe(
      general.uuid,
    );
  });

  it('says so when no user-facing agent is enabled', async () => {
    const { bot, general } = await botWithSources();
    await h.client.updateAgent(general.uuid, { enabled: false });
    const session = await h.client.createSession(bot.uuid);
    const answer = await ask(h.client, session.uuid, 'When are invoices sent?');
    expect(answer.text).toMatch(/no enabled agent/);
    expect(answer.meta.agent_uuid).toBeNull();
  });
});

describe('matching rules', () => {
  it.each([
    ['Can I talk to a human?', true],
    ['I want to speak to someone', true],
    ['connect me with a real person', true],
    ['agent', true],
    ['How do agents work in this product?', false],
    ['What is a human-readable format?', false],
  ])('isHumanRequest(%j) is %s', (query, expected) => {
    expect(isHumanRequest(query)).toBe(expected);
  });

  it('measures the share of query words found in a text', () => {
    expect(fit('opening hours', 'The opening hours of the shop')).toBe(1);
    expect(fit('office times', 'The office hours')).toBe(0.5);
    expect(fit('the a of', 'anything')).toBe(0);
  });
});
