// Chinese and Japanese questions over Chinese and Japanese manuals (cjk-corpus.ts, written for
// this project), beside an English manual and an English original of part of one: the answer
// comes from the document in the question's script, holds the fact asked for, and a question
// the manuals do not answer is declined. The corpus is the dev check for CJK retrieval.
import { describe, expect, it } from 'vitest';
import { composeAnswer, NOT_FOUND_ANSWER } from '../../../src/local-service/knowledge/index.js';
import { CJK_QUESTIONS, FERRY_EN, FERRY_ZH, HIKARI_JA, RELAY_EN } from './cjk-corpus.js';
import { testIndex } from './test-index.js';

const SOURCES = { ferry: FERRY_ZH, hikari: HIKARI_JA, relay: RELAY_EN, 'ferry-en': FERRY_EN };

/** Answerable questions the extractive writer may still miss: words only a morphological
 * analyser would tie ("作り方" for "作る"), not worth a dictionary. */
const MISSES_ALLOWED = 2;

async function answers() {
  const index = testIndex();
  for (const [uuid, text] of Object.entries(SOURCES)) {
    await index.add({
      uuid,
      chatbotUuid: 'bot',
      title: `${uuid}.md`,
      type: 'upload',
      fileName: `${uuid}.md`,
      text,
    });
  }
  const outcomes = [];
  for (const q of CJK_QUESTIONS) {
    const passages = await index.search('bot', q.question, { limit: 5 });
    const answer = composeAnswer(q.question, passages, { citations: true }).text;
    outcomes.push({ ...q, answer, first: passages[0]?.sourceUuid });
  }
  await index.close();
  return outcomes;
}

describe('CJK questions over CJK documents', () => {
  it('answers from the right manual with the fact asked for, and declines the rest', async () => {
    const outcomes = await answers();
    const unanswerable = outcomes.filter((o) => o.source === undefined);
    expect(unanswerable.map((o) => o.answer)).toEqual(unanswerable.map(() => NOT_FOUND_ANSWER));
    const missed = outcomes
      .filter((o) => o.source !== undefined)
      .filter((o) => o.first !== o.source || !o.facts.every((fact) => o.answer.includes(fact)))
      .map((o) => `${o.question} → ${o.answer.slice(0, 80)}`);
    expect(missed.length, missed.join('\n')).toBeLessThanOrEqual(MISSES_ALLOWED);
  });

  it('quotes CJK text as written: no space where a line or sentence break was', async () => {
    const outcomes = await answers();
    const what = outcomes.find((o) => o.question === 'Ferry 是什么？')!;
    expect(what.answer).toContain('轻量级消息队列。它把消息保存在磁盘上');
  });
});
