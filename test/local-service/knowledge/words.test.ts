import { describe, expect, it } from 'vitest';
import { stemsOf, wordsOf } from '../../../src/local-service/knowledge/words.js';

describe('words', () => {
  it('reads ASCII text as it reads the same words among other scripts', () => {
    const ascii = 'Set maxRedirects (snake_case: max_redirects) to 5; Word A1 x.y--z';
    const words = [
      'set',
      'maxredirects',
      'max',
      'redirects',
      'snake case',
      'snake',
      'case',
      'max redirects',
      'max',
      'redirects',
      'to',
      '5',
      'word',
      'a1',
      'x',
      'y',
      'z',
    ].flatMap((word) => word.split(' '));
    expect(wordsOf(ascii)).toEqual(words);
    // One letter outside ASCII takes the Unicode path: the same words, and the one it adds.
    expect(wordsOf(`${ascii} café`)).toEqual([...words, 'cafe']);
    expect(wordsOf(`${ascii} 安装`)).toEqual(['安装', ...words]);
  });

  it('stems each distinct word, stopwords too', () => {
    expect(stemsOf('Running runs; the runner ran. Running!')).toEqual(
      new Set(['run', 'the', 'runner', 'ran']),
    );
  });
});
