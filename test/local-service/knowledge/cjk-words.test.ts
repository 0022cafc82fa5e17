// How Chinese and Japanese questions and passages are read (words.ts, passage.ts): what a CJK
// question is searched by and how much each of its words weighs, what a passage that words a
// thing differently is credited with, which script a passage is in, and what a CJK lead-in
// brings into an answer's window.
import { describe, expect, it } from 'vitest';
import { bestWindow, unitsOf, weighedIn } from '../../../src/local-service/knowledge/passage.js';
import {
  cjkShare,
  isStopword,
  questionWordsOf,
  stemsOf,
} from '../../../src/local-service/knowledge/words.js';

/** The question's search words with their shares, stopwords left out as the search does. */
const asked = (question: string) =>
  questionWordsOf(question).filter(({ word }) => !isStopword(word));
const weightOf = (question: string, words: string[]) =>
  asked(question)
    .filter(({ word }) => words.includes(word))
    .reduce((sum, { share }) => sum + share, 0);

describe('CJK question words', () => {
  it('weighs a long word as one word, however many character pairs it is searched by', () => {
    const question = 'ライブラリの設定を変更するには？';
    // ライブラリ (library) is four pairs; 設定 (setting) one: each is one word asked for.
    expect(weightOf(question, ['ライ', 'イブ', 'ブラ', 'ラリ'])).toBeCloseTo(1);
    expect(weightOf(question, ['設定'])).toBeCloseTo(1);
    expect(weightOf(question, ['変更'])).toBeCloseTo(1);
  });

  it('leaves out the function words a question is framed with, keeping what it asks about', () => {
    const words = asked('Hikari のインストール方法を教えてください').map((w) => w.word);
    expect(words).toContain('hikari');
    expect(words).toContain('スト');
    expect(words).not.toContain('方法');
    expect(words).not.toContain('教え');
    const chinese = asked('请问是否有没有办法导出日志？').map((w) => w.word);
    expect(chinese).toEqual(['导出', '日志']);
  });

  it('asks for a one-kanji Japanese root with its first kana, as the document holds it', () => {
    // Intl.Segmenter cuts 失われない into 失 and われ: the index holds 失わ (of 失われる).
    expect(asked('ログが失われないようにするには？').map((w) => w.word)).toContain('失わ');
    // An interrogative is no root: 何を is not asked for.
    expect(asked('正規化結果の level は何を意味しますか？').map((w) => w.word)).not.toContain(
      '何を',
    );
  });
});

describe('crediting a passage', () => {
  it('gives half a pair to a passage holding its Chinese characters in another word', () => {
    const weights = new Map([
      ['去掉', 1], // "remove"; the passage says 移除掉
      ['调试', 1], // "debug", said as it is asked
    ]);
    const passage = stemsOf('结束调试后，可移除掉。');
    // 调试 found: 1; 去掉 by 掉 alone: half of its characters, at half a pair's worth.
    expect(weighedIn(weights, passage)).toBeCloseTo((1 + 0.5 * 0.5) / 2);
    // Nothing shared, nothing credited; kana carry no meaning of their own.
    expect(weighedIn(new Map([['去掉', 1]]), stemsOf('安装完成。'))).toBe(0);
    expect(weighedIn(new Map([['ライ', 1]]), stemsOf('ラジオとイヤホン'))).toBe(0);
  });

  it('reads a passage’s script from its prose, not its code or link addresses', () => {
    const chinese = [
      '通过 [插件文档](https://github.com/example/very-long-repository-name/blob/main/docs/plugin.md) 配置启动插件：',
      '',
      '```ts',
      "export default { mysql: { enable: true, package: 'egg-mysql' } };",
      '```',
    ].join('\n');
    expect(cjkShare(chinese)).toBeGreaterThan(0.5);
    expect(cjkShare('Configure the plugin in `config/plugin.ts` (配置).')).toBeLessThan(0.2);
  });
});

describe('CJK answer windows', () => {
  it('brings what a full-width colon introduces, even past the budget', () => {
    // A long lead-in (words the budget counts, here in a mixed-script sentence) that
    // introduces a list with a full-width colon.
    const lead = `${'Ferry 队列 stores messages on disk, '.repeat(20)}多数据源的配置项如下：`;
    const item = '- clients 中每一项是一个数据库的连接信息，通过 app.mysqls.get 获取。';
    const units = unitsOf(`${lead}\n\n${item}\n`);
    expect(units.map((u) => u.kind)).toEqual(['sentence', 'item']);
    expect(units[0]!.words + units[1]!.words).toBeGreaterThan(120); // the item is past the budget
    const window = bestWindow(units, new Map([['配置', 1]]), new Set());
    expect(window.units.map((u) => u.kind)).toEqual(['sentence', 'item']);
  });
});
