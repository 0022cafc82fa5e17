import { describe, expect, it } from 'vitest';
import {
  commandTerms,
  definitionSubject,
  leadsWithSubject,
} from '../../../src/local-service/knowledge/compose-shape.js';
import { searchInConversation } from '../../../src/local-service/knowledge/follow-up.js';
import { composeAnswer, type KnowledgeIndex } from '../../../src/local-service/knowledge/index.js';
import type { Unit } from '../../../src/local-service/knowledge/units.js';
import { termsOf } from '../../../src/local-service/knowledge/terms.js';
import { testIndex } from './test-index.js';
import { shippedSources } from './demo-corpus.js';

const BOT = 'bot';

async function shippedIndex(): Promise<KnowledgeIndex> {
  const index = testIndex();
  for (const source of shippedSources(BOT)) await index.add(source);
  return index;
}

/** The answer's first paragraph (its first unit, with what it carries), citations on. */
async function firstUnit(index: KnowledgeIndex, query: string): Promise<string> {
  const passages = await searchInConversation(index, BOT, query, [], { limit: 5 });
  const answer = composeAnswer(query, passages, { citations: true }).text;
  return answer.split(/\n\n(?!```)/)[0]!;
}

describe('questions every new user asks the demo', () => {
  it('answers "what is X" with the sentence X is the subject of, from the page titled X', async () => {
    const index = await shippedIndex();
    const first = await firstUnit(index, 'What is chatbridge?');
    expect(first).toMatch(/^According to README\.md: chatbridge puts a RAG chatbot into Slack/);
    expect(first).not.toContain('runs Slack whenever');
  });

  it('answers "how do I install X" with the step whose command installs it', async () => {
    const index = await shippedIndex();
    const first = await firstUnit(index, 'How do I install chatbridge?');
    expect(first).toContain('On a fresh machine with Node.js 20.18.1 or newer');
    expect(first).toContain('```sh\nnpm install && npm start\n```');
    expect(first).not.toContain('where the package is installed');
  });

  it('still answers the Slack and tests questions from their sections', async () => {
    const index = await shippedIndex();
    expect(await firstUnit(index, 'How do I connect chatbridge to Slack?')).toMatch(
      /`chatbridge start` \(what `npm start` runs\) starts every platform|runs Slack whenever/,
    );
    const tests = await firstUnit(index, 'How do I run the tests?');
    expect(tests).toContain('To run the tests (typecheck, lint, and the test suite)');
    expect(tests).toContain('npm test');
    expect(tests).not.toContain('printf');
  });
});

describe('definitionSubject', () => {
  it.each([
    ['What is chatbridge?', 'chatbridge'],
    ["what's the local service", 'local service'],
    ['What does chatbridge do?', 'chatbridge'],
    ['Tell me about agents', 'agents'],
    ['Explain BM25.', 'BM25'],
    ['what are interceptors in axios?', 'interceptors'],
    ["what's a Summary metric in prom-client", 'Summary metric'],
    ['what are BigInts used for in better-sqlite3', 'BigInts'],
  ])('"%s" asks what "%s" is', (query, subject) => {
    expect(definitionSubject(query)).toEqual(termsOf(subject));
  });

  it.each([
    'How do I install chatbridge?',
    'What is the variable that sets the port of the service?',
    'What?',
  ])('"%s" is not a definition question', (query) => {
    expect(definitionSubject(query)).toBeUndefined();
  });
});

describe('leadsWithSubject', () => {
  it.each([
    ['chatbridge puts a RAG chatbot into Slack.', true],
    ['The local service implements the interface.', true],
    ['**chatbridge** is a bridge.', true],
    ['`chatbridge start` runs Slack whenever a token is set.', false],
    ['chatbridge start runs Slack.', false],
    ['Admins manage chatbridge with a command.', false],
  ])('"%s" → %s', (text, expected) => {
    const subject = termsOf(text.includes('local') ? 'local service' : 'chatbridge');
    expect(leadsWithSubject(text, subject)).toBe(expected);
  });
});

describe('commandTerms', () => {
  const unit = (carried: string, carriedUnits: Unit[] = []) => ({ carried, carriedUnits }) as Unit;

  it('reads the command words of a code block, not its quoted data, comments or variables', () => {
    const terms = commandTerms(
      unit(
        [
          '```sh',
          'export CHATBRIDGE_SERVICE_URL=https://example.com',
          "printf 'How do I run the tests?' | npm install  # then start it",
          '```',
        ].join('\n'),
      ),
    );
    expect([...terms].sort()).toEqual(['export', 'install', 'npm', 'printf']);
  });

  it('reads nothing from a carried list', () => {
    expect(commandTerms(unit('- npm install', [unit('')])).size).toBe(0);
  });
});
