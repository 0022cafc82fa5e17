// Words, the one way the local service reads them: Intl.Segmenter finds them, stopwords-iso's
// lists name the ones that carry no topic, and `stemmer` (Porter, the algorithm of FTS5's
// porter tokenizer) folds their forms, so a question's terms are the ones FTS5 indexed.
// Chinese, Japanese and Korean, written without spaces, are read as overlapping pairs of
// characters (bigrams), as CJK search engines do (Lucene's CJKAnalyzer): a question and a
// document then meet on the same pairs however a dictionary would have cut either into words.
import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';

const lists = createRequire(import.meta.url)('stopwords-iso') as Record<string, string[]>;
const STOPWORDS = new Set(['en', 'zh', 'ja', 'ko'].flatMap((language) => lists[language] ?? []));
const CJK_CHARS = '\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff';
const CJK = new RegExp(`[${CJK_CHARS}]`);
const CJK_RUNS = new RegExp(`[${CJK_CHARS}]+`, 'g');
const LATIN_WORD = /^[a-z0-9]+$/;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

export const hasCjk = (text: string): boolean => CJK.test(text);

const CJK_ALL = new RegExp(`[${CJK_CHARS}]`, 'g');

/** The share of a text's letters written in CJK script, 0..1. */
export function cjkShare(text: string): number {
  if (!hasCjk(text)) return 0;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  return letters === 0 ? 0 : (text.match(CJK_ALL)?.length ?? 0) / letters;
}

/** A run of CJK script as its overlapping character pairs; a single character stands alone. */
function bigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length === 1) return chars;
  return chars.slice(1).map((char, i) => chars[i] + char);
}

/**
 * The words of a text, lowercased. A word written in camelCase or snake_case also gives its
 * parts ("maxRedirects": maxredirects, max, redirects), as documentation of code names an
 * option by its parts in prose. CJK runs give their bigrams (see the top of this file).
 */
export function wordsOf(text: string): string[] {
  // ASCII, most documentation, is its own NFKC form and holds no CJK: one scan tells.
  if (ASCII.test(text)) return latinWords(text, ASCII_SEPARATORS);
  const normal = text.normalize('NFKC');
  const words = (normal.match(CJK_RUNS) ?? []).flatMap(bigrams);
  return [...words, ...latinWords(normal.replace(CJK_RUNS, ' '))];
}

const ASCII = /^\p{ASCII}*$/u;
/** What separates words, as SEPARATORS, in ASCII alone (faster than a Unicode class). */
const ASCII_SEPARATORS = /[^A-Za-z0-9_]+/;
/** Not a letter, digit or underscore: what separates words (FTS5's unicode61 reading). */
const SEPARATORS = /[^\p{L}\p{N}_]+/u;

/**
 * The words of a question: as wordsOf, except that CJK is first cut into words (Intl.Segmenter)
 * and each word of two characters or more gives its bigrams, so a question is never searched by
 * a pair spanning two of its words, which no document need hold. One character alone is
 * mostly a particle, and is left out.
 */
export function questionWordsOf(text: string): string[] {
  const words: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(text.normalize('NFKC'))) {
    if (!isWordLike) continue;
    if (!hasCjk(segment)) words.push(...latinWords(segment));
    else if ([...segment].length > 1) words.push(...bigrams(segment));
  }
  return words;
}

/**
 * Words of scripts written with spaces, cut as FTS5's unicode61 tokenizer cuts them (letters
 * and digits; diacritics folded), so "yauzl.open" is yauzl and open in a question as in the
 * index; a camelCase or snake_case name also gives its parts.
 */
function latinWords(text: string, separators = SEPARATORS): string[] {
  const words: string[] = [];
  for (const token of text.split(separators)) {
    if (token === '') continue;
    if (/^[a-z0-9]+$/.test(token)) {
      words.push(token); // the common case, already as indexed
      continue;
    }
    if (/^[A-Z][a-z0-9]+$/.test(token)) {
      words.push(token.toLowerCase()); // a sentence's first word: no parts, nothing to fold
      continue;
    }
    const parts = token.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_]+/);
    for (const word of parts.length > 1 ? [token.replaceAll('_', ' '), ...parts] : [token])
      if (word !== '') words.push(...fold(word).split(' '));
  }
  return words;
}

const fold = (word: string) =>
  !/[^\p{ASCII}]/u.test(word)
    ? word.toLowerCase()
    : word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** Stems already computed: a search reads thousands of words, most of them seen before. */
const stems = new Map<string, string>();
const STEMS_KEPT = 100_000;

/** A word's index form: Porter's stem for Latin words, the word itself for other scripts. */
export function stemOf(word: string): string {
  let stem = stems.get(word); // looked up first: most words were seen before
  if (stem === undefined) {
    if (stems.size >= STEMS_KEPT) stems.clear();
    stem = LATIN_WORD.test(word) ? stemmer(word) : word;
    stems.set(word, stem);
  }
  return stem;
}

/**
 * Whether a word carries no topic: a listed stopword, no letter or digit, or Japanese written
 * in hiragana alone, the script of particles, inflections and auxiliaries ("ください",
 * "ますか"); Japanese writes what a text is about in kanji and katakana.
 */
export const isStopword = (word: string): boolean =>
  STOPWORDS.has(word) || !/\p{L}|\d/u.test(word) || /^\p{Script=Hiragana}+$/u.test(word);

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
  // Each distinct word stemmed once: a chunk says "the" and its topic words many times.
  const stemmed = new Set<string>();
  for (const word of new Set(wordsOf(text))) stemmed.add(stemOf(word));
  return stemmed;
}

/** Markdown links as their words alone: an address is not what a passage says. */
export const withoutLinkTargets = (text: string): string =>
  text.includes('](') ? text.replace(/\]\((?:[^()\s]|\([^()\s]*\))*\)/g, ']') : text;

/**
 * The text FTS5 indexes for a passage: its words as read (link addresses left out), runs of
 * CJK script as their bigrams (FTS5's unicode61 tokenizer would read a run as one token).
 */
export function indexedText(written: string): string {
  const text = withoutLinkTargets(written);
  if (!hasCjk(text)) return text;
  return text.replace(CJK_RUNS, (run) => ` ${bigrams(run).join(' ')} `);
}
