// Words, the one way the local service reads them: Intl.Segmenter finds them (so Chinese and
// Japanese text, written without spaces, is cut into words too), `stopword` names the ones
// that carry no topic (stopwords-iso's lists), and `stemmer` (Porter, the algorithm of FTS5's porter tokenizer) folds
// their forms, so a question's terms are the ones FTS5 indexed.
import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';

const lists = createRequire(import.meta.url)('stopwords-iso') as Record<string, string[]>;
const STOPWORDS = new Set(['en', 'zh', 'ja', 'ko'].flatMap((language) => lists[language] ?? []));
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
const LATIN_WORD = /^[a-z0-9_'’.-]+$/;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

export const hasCjk = (text: string): boolean => CJK.test(text);

/**
 * The words of a text, lowercased, in order. A word written in camelCase or snake_case also
 * gives its parts ("maxRedirects": maxredirects, max, redirects), as documentation of code
 * names an option by its parts in prose.
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(text.normalize('NFKC'))) {
    if (!isWordLike) continue;
    const word = segment.toLowerCase();
    words.push(word);
    const parts = segment
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[\s_]+/);
    if (parts.length > 1) words.push(...parts.filter((part) => part !== ''));
  }
  return words;
}

/** A word's index form: Porter's stem for Latin words, the word itself for other scripts. */
export const stemOf = (word: string): string =>
  LATIN_WORD.test(word) ? stemmer(word.replace(/['’]s$/, '')) : word;

export const isStopword = (word: string): boolean => STOPWORDS.has(word) || !/\p{L}|\d/u.test(word);

/** The distinct stems of a text's topic words, in order of first use. */
export function termsOf(text: string): string[] {
  return [
    ...new Set(
      wordsOf(text)
        .filter((word) => !isStopword(word))
        .map(stemOf),
    ),
  ];
}

/** Every stem of a text (stopwords too), for matching a question's terms against a passage. */
export function stemsOf(text: string): Set<string> {
  return new Set(wordsOf(text).map(stemOf));
}

/** Markdown links as their words alone: an address is not what a passage says. */
export const withoutLinkTargets = (text: string): string =>
  text.replace(/\]\((?:[^()\s]|\([^()\s]*\))*\)/g, ']');

/**
 * The text FTS5 indexes for a passage: its words as read (link addresses left out), with runs
 * of CJK script cut into words by spaces, since FTS5's unicode61 tokenizer reads an unspaced
 * run as one token.
 */
export function indexedText(written: string): string {
  const text = withoutLinkTargets(written);
  if (!hasCjk(text)) return text;
  let out = '';
  for (const { segment, isWordLike } of segmenter.segment(text))
    out += isWordLike && hasCjk(segment) ? ` ${segment} ` : segment;
  return out;
}
