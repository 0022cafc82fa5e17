// Words, the one way the local service reads them: Intl.Segmenter finds them, stopwords-iso's
// lists name the ones that carry no topic, and `stemmer` (Porter, the algorithm of FTS5's
// porter tokenizer) folds their forms, so a question's terms are the ones FTS5 indexed.
// Chinese, Japanese and Korean, written without spaces, are read as overlapping pairs of
// characters (bigrams), as CJK search engines do (Lucene's CJKAnalyzer): a question and a
// document then meet on the same pairs however a dictionary would have cut either into words.
import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';
import { wordSegmentsOf } from './segments.js';

const lists = createRequire(import.meta.url)('stopwords-iso') as Record<string, string[]>;
/**
 * Chinese and Japanese function words stopwords-iso's lists lack though its English list holds
 * their English ("way", "tell", "please ask", "whether", "not", "such", "after", "before",
 * "done", "know"): they say that something is asked, or when, not what about.
 */
const FUNCTION_WORDS = [
  ...['方法', '办法', '教え', '请问', '是否', '有没有', '没有', '这种', '那种'],
  ...['之后', '以后', '之前', '以前', '完了', '知道'],
];
const STOPWORDS = new Set([
  ...['en', 'zh', 'ja', 'ko'].flatMap((language) => lists[language] ?? []),
  ...FUNCTION_WORDS,
]);
const CJK_CHARS = '\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff';
/** The first code point of CJK_CHARS: no word of another script starts at or above it. */
const CJK_FIRST = 0x3040;
/** Whether a word (as wordsOf gives it) is CJK: one look at its first character. */
export const isCjkWord = (word: string): boolean => word.charCodeAt(0) >= CJK_FIRST;
const CJK = new RegExp(`[${CJK_CHARS}]`);
const CJK_RUNS = new RegExp(`[${CJK_CHARS}]+`, 'g');
const LATIN_WORD = /^[a-z0-9]+$/;

export const hasCjk = (text: string): boolean => CJK.test(text);

const CJK_ALL = new RegExp(`[${CJK_CHARS}]`, 'g');

/** Code, fenced or inline: written in Latin letters whatever the language of the prose. */
const CODE = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`/g;

/**
 * The share of a text's prose letters written in CJK script, 0..1. Code and link addresses
 * are left out: a Chinese page's examples and links are in Latin letters, and it is still
 * Chinese to the one who reads it.
 */
export function cjkShare(text: string): number {
  if (!hasCjk(text)) return 0;
  const prose = withoutLinkTargets(text).replace(CODE, ' ');
  const letters = prose.match(/\p{L}/gu)?.length ?? 0;
  return letters === 0 ? 0 : (prose.match(CJK_ALL)?.length ?? 0) / letters;
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

/** A question's search word and the share of one word's weight it carries. */
export interface QuestionWord {
  word: string;
  /** 1 for a word; 1/n for each of the n character pairs of a CJK word. */
  share: number;
}

/**
 * The words of a question: as wordsOf, except that CJK is first cut into words (Intl.Segmenter)
 * and each word of two characters or more gives its bigrams, so a question is never searched by
 * a pair spanning two of its words, which no document need hold. The pairs of one word share
 * its weight: "ライブラリ" (library) is one word asked for, not four, and weighs as much as
 * "設定" (setting); a word partly found (数据 of 数据库) counts in part. A CJK word the stopword
 * list names is left out whole, and one character alone is mostly a particle, left out too.
 */
export function questionWordsOf(text: string): QuestionWord[] {
  const words: QuestionWord[] = [];
  const segments = [...wordSegmentsOf(text.normalize('NFKC'))];
  for (const [i, { segment, isWordLike }] of segments.entries()) {
    if (!isWordLike) continue;
    if (!hasCjk(segment)) {
      for (const word of latinWords(segment)) words.push({ word, share: 1 });
      continue;
    }
    const root = inflectedRoot(segment, segments[i + 1]?.segment ?? '');
    if (root !== undefined) words.push({ word: root, share: 1 });
    if ([...segment].length < 2 || STOPWORDS.has(segment)) continue;
    const pairs = bigrams(segment);
    for (const word of pairs) words.push({ word, share: 1 / pairs.length });
  }
  return words;
}

/**
 * A Japanese verb or adjective written as one kanji and its kana ending (失われ "be lost", 長い
 * "long") is cut by Intl.Segmenter into the kanji alone and the ending: the kanji and the
 * ending's first kana are the pair the document's index holds (失わ of 失われる), so that pair
 * is asked for. A Chinese single character stands before another character, never kana.
 */
function inflectedRoot(segment: string, next: string): string | undefined {
  if (!/^\p{Script=Han}$/u.test(segment) || STOPWORDS.has(segment)) return undefined; // 何を
  const kana = next[0] ?? '';
  return /\p{Script=Hiragana}/u.test(kana) ? segment + kana : undefined;
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

/** Chinese characters (kanji in Japanese): each one a word's root, with a meaning of its own. */
const HAN = /\p{Script=Han}/gu;

/**
 * Every stem of a text (stopwords too), for matching a question's terms against a passage;
 * with CJK, its Chinese characters one by one as well (see characterCredit).
 */
export function stemsOf(text: string): Set<string> {
  // Each distinct word stemmed once: a chunk says "the" and its topic words many times.
  const stemmed = new Set<string>();
  let cjk = false;
  for (const word of new Set(wordsOf(text))) {
    stemmed.add(stemOf(word));
    cjk ||= isCjkWord(word); // a CJK pair: the text holds CJK
  }
  if (cjk) for (const char of text.normalize('NFKC').match(HAN) ?? []) stemmed.add(char);
  return stemmed;
}

/**
 * How much of a character pair the held stems hold by its Chinese characters alone, when the
 * pair itself is not held: 0..1, the share of its Chinese characters found. Chinese writes one
 * meaning in another word through a shared character (去掉 and 移除掉 "remove", 启用 and 启动
 * "enable"), and Japanese inflects a kanji root (試し, 試せ "try"): searching Chinese by
 * characters as well as pairs finds what either alone misses, as Chinese retrieval research
 * long found (Kwok 1997; Nie et al. 2000). Not a pair's full worth: a character also stands
 * in words of other meanings.
 */
export function characterCredit(pair: string, held: readonly ReadonlySet<string>[]): number {
  const chars = pair.match(HAN);
  if (chars === null) return 0;
  return chars.filter((char) => held.some((stems) => stems.has(char))).length / chars.length;
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
