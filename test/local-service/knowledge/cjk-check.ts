// tsx test/local-service/knowledge/cjk-check.ts: every CJK question, its answer, pass or fail.
import { composeAnswer, NOT_FOUND_ANSWER } from '../../../src/local-service/knowledge/index.js';
import { CJK_QUESTIONS, FERRY_EN, FERRY_ZH, HIKARI_JA, RELAY_EN } from './cjk-corpus.js';
import { testIndex } from './test-index.js';

const index = testIndex();
for (const [uuid, text] of [
  ['ferry', FERRY_ZH],
  ['hikari', HIKARI_JA],
  ['relay', RELAY_EN],
  ['ferry-en', FERRY_EN],
] as const)
  await index.add({
    uuid,
    chatbotUuid: 'bot',
    title: `${uuid}.md`,
    type: 'upload',
    fileName: `${uuid}.md`,
    text,
  });
let ok = 0;
for (const q of CJK_QUESTIONS) {
  const passages = await index.search('bot', q.question, { limit: 8 });
  const answer = composeAnswer(q.question, passages, { citations: true }).text;
  const good =
    q.source === undefined
      ? answer === NOT_FOUND_ANSWER
      : passages[0]?.sourceUuid === q.source && q.facts.every((f) => answer.includes(f));
  if (good) ok++;
  console.log(
    `${good ? 'ok  ' : 'FAIL'} ${q.question}\n     ${answer.replace(/\n/g, '\n     ').slice(0, 400)}\n     top: ${passages
      .slice(0, 3)
      .map(
        (p) =>
          `${p.sourceUuid}#${p.chunkIndex} ${p.score.toFixed(3)} cov ${p.coverage?.toFixed(2)}`,
      )
      .join(' | ')}`,
  );
}
console.log(`${ok}/${CJK_QUESTIONS.length}`);
await index.close();
