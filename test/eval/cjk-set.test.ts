// Set CJK-dev of `npm run eval` (eval/data-cjk.ts): Chinese and Japanese documentation with
// questions in both languages, every key fact in its document, questions nothing answers among
// them; and the judge reads a Chinese or Japanese full stop as the end of a sentence.
import { beforeAll, describe, expect, it } from 'vitest';
import { checkQuestionsB } from '../../eval/data-b.js';
import { readCorpusCjk, readQuestionsCjk } from '../../eval/data-cjk.js';
import type { Upload } from '../../eval/documents.js';
import { isCjk } from '../../eval/floor.js';
import { normalizeForEndings, problemsOf } from '../../eval/score.js';

describe('set CJK-dev', () => {
  let uploads: Upload[] = [];
  beforeAll(async () => {
    uploads = await readCorpusCjk();
  });

  it('asks Chinese and Japanese questions of at least three documents, some unanswerable', () => {
    const questions = readQuestionsCjk(uploads);
    expect(uploads.length).toBeGreaterThanOrEqual(3);
    expect(questions.every((q) => isCjk(q.question))).toBe(true);
    const answerable = questions.filter((q) => q.kind !== 'unanswerable');
    expect(answerable.length).toBeGreaterThanOrEqual(20);
    expect(questions.length - answerable.length).toBeGreaterThanOrEqual(4);
    expect(new Set(answerable.map((q) => q.kind))).toEqual(
      new Set(['definition', 'howto', 'option', 'followup']),
    );
    const kana = /\p{Script=Hiragana}|\p{Script=Katakana}/u;
    expect(questions.some((q) => kana.test(q.question))).toBe(true); // Japanese
    expect(questions.some((q) => !kana.test(q.question))).toBe(true); // Chinese
  });

  it('rejects a key fact its document does not hold', () => {
    const question = {
      id: 'x',
      kind: 'howto',
      question: '怎么安装？',
      file: uploads[0]!.path,
      keyFacts: ['文档里没有这句话'],
    };
    expect(() => checkQuestionsB([question], uploads, 'questions-cjk.json')).toThrow(
      /questions-cjk\.json: x: key fact/,
    );
  });
});

describe('the judge of CJK answers', () => {
  it('reads 。 as the end of a sentence, where the source goes on with another', () => {
    const source = normalizeForEndings('安装完成后需要重启服务。然后在配置文件中打开日志。');
    const kinds = (answer: string) => problemsOf(answer, source).map((p) => p.kind);
    expect(kinds('According to a.md: 安装完成后需要重启服务。')).not.toContain('ends-mid-sentence');
    expect(kinds('According to a.md: 安装完成后需要重启')).toContain('ends-mid-sentence');
  });
});
