// Synthetic text for the local service benchmarks: seeded, so every run measures the same text.

import { seededRandom } from '../test/seeded-random.js';

const SYLLABLES =
  'ka lo mi ne ta ri so vu de pa an el or in us ber con tion pre ex ly ment ing gra phi stra'.split(
    ' ',
  );
const FILLERS =
  'the a of to and in is for that with on as by it from at be this are or an which'.split(' ');

export interface BenchCorpus {
  words: string[];
  /** A word, drawn with a Zipf-like skew (few common, many rare). */
  pick: () => string;
  rand: () => number;
  /** A document of about `bytes` characters. */
  doc: (bytes: number) => string;
}

/**
 * Documents of paragraphs of 2-6 sentences drawn from a pool of 50k sentences of 8-21 words
 * (40% filler/stop words, the rest from a skewed vocabulary of 30k pseudo-words), sometimes
 * under a short heading. Drawing from a pool keeps generation cheap next to what is measured.
 */
export function corpus(seed: number): BenchCorpus {
  const rand = seededRandom(seed);
  const set = new Set<string>();
  while (set.size < 30_000) {
    const n = 2 + Math.floor(rand() * 3);
    let word = '';
    for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    set.add(word);
  }
  const words = [...set];
  // rank ~ size^u gives a heavy head and a long tail
  const pick = () =>
    words[Math.min(words.length - 1, Math.floor(Math.pow(words.length, rand())) - 1)]!;
  const pool = Array.from({ length: 50_000 }, () => {
    const n = 8 + Math.floor(rand() * 14);
    const sentence: string[] = [];
    for (let w = 0; w < n; w++)
      sentence.push(rand() < 0.4 ? FILLERS[Math.floor(rand() * FILLERS.length)]! : pick());
    const text = sentence.join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  });
  const doc = (bytes: number) => {
    const paragraphs: string[] = [];
    let length = 0;
    while (length < bytes) {
      if (rand() < 0.15) paragraphs.push(`${pick()} ${pick()} overview`);
      const count = 2 + Math.floor(rand() * 5);
      const sentences: string[] = [];
      for (let i = 0; i < count; i++) sentences.push(pool[Math.floor(rand() * pool.length)]!);
      const paragraph = sentences.join(' ');
      paragraphs.push(paragraph);
      length += paragraph.length + 2;
    }
    return paragraphs.join('\n\n');
  };
  return { words, pick, rand, doc };
}

/** Question-like queries: filler words plus 2-4 topic words of mixed frequency. */
export function questions(text: BenchCorpus, count: number): string[] {
  const { words, pick, rand } = text;
  return Array.from({ length: count }, () => {
    const topic = Array.from({ length: 2 + Math.floor(rand() * 3) }, () =>
      rand() < 0.5 ? pick() : words[Math.floor(rand() * 5000)]!,
    );
    return `how do I ${topic.join(' ')} with the ${pick()}?`;
  });
}
