// Words and sentences found a window at a time (segments.ts) are the ones Intl.Segmenter finds
// in the whole text, and the work stays proportional to the text: Node 20's segmenter copies
// the whole text into every segment it returns, so a long paragraph cut whole was quadratic
// (a 640 KB one exhausted the heap).
import { describe, expect, it } from 'vitest';
import { chunkText } from '../../../src/local-service/knowledge/chunk.js';
import { segmentsOf } from '../../../src/local-service/knowledge/segments.js';
import { questionWordsOf } from '../../../src/local-service/knowledge/words.js';

const MIXED = [
  'Relay stores messages on disk, e.g. in /var/lib/relay. Mr. Smith said: "back up nightly!"',
  'Version 3.14.1 costs $2,500.00 a year… or does it? Yes. ',
  'Relay 是一个为小团队设计的消息代理。它按顺序投递消息。設定ファイルを読み込みます。',
  "can't won't it's — don't (see §4.2). 🙂 Done.\n\nA new paragraph starts here. ",
].join(' ');

const plain = (segments: Iterable<{ segment: string; index: number; isWordLike?: boolean }>) =>
  [...segments].map(({ segment, index, isWordLike }) => ({ segment, index, isWordLike }));

describe('segmentsOf', () => {
  for (const granularity of ['word', 'sentence'] as const) {
    it(`finds the ${granularity}s Intl.Segmenter finds in the whole text, across many windows`, () => {
      const segmenter = new Intl.Segmenter(undefined, { granularity });
      const text = MIXED.repeat(12);
      // Windows of 200 characters: dozens of them, each ending somewhere else in MIXED.
      expect(plain(segmentsOf(segmenter, text, 200))).toEqual(plain(segmenter.segment(text)));
    });
  }

  it('keeps a sentence longer than a window whole', () => {
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
    const long = `${'word '.repeat(1_000).trim()}. Short one. `;
    expect([...segmentsOf(segmenter, long, 128)].map((s) => s.segment)).toEqual([
      `${'word '.repeat(1_000).trim()}. `,
      'Short one. ',
    ]);
  });

  it('copies text in proportion to the text, not its square', () => {
    // What V8 costs: every segment returned holds a copy of the string it was cut from.
    const real = new Intl.Segmenter(undefined, { granularity: 'sentence' });
    let copied = 0;
    const counting = {
      segment: (text: string) => ({
        *[Symbol.iterator]() {
          for (const data of real.segment(text)) {
            copied += text.length;
            yield data;
          }
        },
      }),
    } as unknown as Intl.Segmenter;
    const text = 'The relay stores every message on disk. '.repeat(5_000); // 200 KB
    expect([...segmentsOf(counting, text)]).toHaveLength(5_000);
    // Whole, 5,000 copies of 200 KB: 5,000 times the text.
    expect(copied).toBeLessThan(40 * text.length);
  });
});

describe('long text through the knowledge pipeline', () => {
  it('chunks a 640 KB paragraph of short sentences (it ran out of memory whole)', () => {
    const sentence = 'The relay stores every message on disk. ';
    const chunks = chunkText(sentence.repeat(16_000));
    expect(chunks.length).toBeGreaterThan(100);
    expect(chunks.join(' ').split(sentence.trim()).length - 1).toBe(16_000);
  });

  it('reads a question of 4,000 words as its words', () => {
    const words = questionWordsOf('relay backup '.repeat(2_000));
    expect(words).toHaveLength(4_000);
    expect(new Set(words.map((w) => w.word))).toEqual(new Set(['relay', 'backup']));
  });
});
