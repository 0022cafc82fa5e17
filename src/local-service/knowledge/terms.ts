// Turning text into search terms, shared by the BM25 index and the answer writer so both agree
// on what a "word" is: split on anything that is not a letter or digit, lowercase, drop
// English stop words, then a light suffix-stripping stemmer ("installing", "installed",
// "installs" → "install") so a question and a passage meet despite inflection.
import { HASH_PRIME, HASH_SEED, TokenMap, hashOf } from './token-map.js';

const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before ' +
    'being below between both but by can cannot could did do does doing don down during each ' +
    'few for from further had has have having he her here hers herself him himself his how i ' +
    'if in into is isn it its itself just let me more most my myself no nor not of off on once ' +
    'only or other ought our ours ourselves out over own same she should so some such than that ' +
    'the their theirs them themselves then there these they this those through to too under ' +
    'until up very was we were what when where which while who whom why will with would you ' +
    'your yours yourself yourselves also s t d ll m re ve'
  ).split(' '),
);

/** Splits text into raw word tokens (letters and digits). */
export function tokenize(text: string): string[] {
  return text.split(/[^\p{L}\p{N}]+/u).filter((token) => token !== '');
}

/** A light English stemmer: consistent, not linguistically perfect; both sides use it. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (!/(ss|us|is)$/.test(w) && w.endsWith('s')) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length >= 6) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length >= 5) w = w.slice(0, -2);
  // running → runn → run; stopped → stopp → stop
  if (w.length >= 4 && /([bdfgkmnprt])\1$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length >= 4) w = w.slice(0, -1);
  return w;
}

/** One token → its search term, or null for a stop word. */
export function normalizeTerm(token: string): string | null {
  return cachedTerm(token, 0, token.length, hashOf(token));
}

/** The search terms of a text, in order, stop words removed (duplicates kept). */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  const spans = tokenSpans(text);
  for (let t = 0; t < spans.count; t++) {
    const at = 3 * t;
    const term = cachedTerm(text, spans.data[at]!, spans.data[at + 1]!, spans.data[at + 2]!);
    if (term !== null) terms.push(term);
  }
  return terms;
}

/** Where the tokens of a text are: token t is text[data[3t], data[3t+1]), hashed data[3t+2]. */
export interface TokenSpans {
  count: number;
  data: Int32Array;
}

const spans: TokenSpans = { count: 0, data: new Int32Array(3 * 1024) };

/**
 * The tokens of text, exactly those of tokenize(), found in one pass over its characters (a
 * letter-or-digit table, code points for surrogate pairs) and hashed as they are read (see
 * token-map.ts). The answer is reused by the next call: read it before calling again.
 */
export function tokenSpans(text: string): TokenSpans {
  const length = text.length;
  let count = 0;
  let data = spans.data;
  let start = -1;
  let hash = 0;
  for (let i = 0; i < length;) {
    const code = text.charCodeAt(i);
    let word: boolean;
    let width = 1;
    if (code < 128) word = ASCII_WORD[code] === 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < length && isLowSurrogate(text, i + 1)) {
      width = 2;
      word = isAstralWordChar(text.codePointAt(i)!);
    } else word = isBmpWordChar(code);
    if (word) {
      if (start < 0) {
        start = i;
        hash = HASH_SEED;
      }
      hash = Math.imul(hash ^ code, HASH_PRIME);
      if (width === 2) hash = Math.imul(hash ^ text.charCodeAt(i + 1), HASH_PRIME);
    } else if (start >= 0) {
      if (3 * count + 3 > data.length) data = spans.data = doubled(data);
      data[3 * count] = start;
      data[3 * count + 1] = i;
      data[3 * count + 2] = hash;
      count++;
      start = -1;
    }
    i += width;
  }
  if (start >= 0) {
    if (3 * count + 3 > data.length) data = spans.data = doubled(data);
    data[3 * count] = start;
    data[3 * count + 1] = length;
    data[3 * count + 2] = hash;
    count++;
  }
  spans.count = count;
  return spans;
}

function doubled(data: Int32Array): Int32Array {
  const bigger = new Int32Array(data.length * 2);
  bigger.set(data);
  return bigger;
}

// What tokenize()'s /[^\p{L}\p{N}]+/u splits on, one code point at a time.
const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const ASCII_WORD = new Uint8Array(128).map((_, code) =>
  /[A-Za-z0-9]/.test(String.fromCharCode(code)) ? 1 : 0,
);
/** BMP code units by class, learnt on first sight: 0 unknown, 1 letter or digit, 2 other. */
const BMP_CLASS = new Uint8Array(65_536);
const ASTRAL_CLASS = new Map<number, boolean>();

function isBmpWordChar(code: number): boolean {
  let known = BMP_CLASS[code]!;
  if (known === 0) BMP_CLASS[code] = known = WORD_CHAR.test(String.fromCharCode(code)) ? 1 : 2;
  return known === 1;
}

function isAstralWordChar(codePoint: number): boolean {
  let known = ASTRAL_CLASS.get(codePoint);
  if (known === undefined) {
    known = WORD_CHAR.test(String.fromCodePoint(codePoint));
    ASTRAL_CLASS.set(codePoint, known);
  }
  return known;
}

function isLowSurrogate(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff;
}

// Normalizing is the hot path of indexing: remember the answers (bounded, cleared when full).
const CACHE_LIMIT = 200_000;
const cache = new TokenMap();
let cachedTerms: (string | null)[] = [];

function cachedTerm(text: string, start: number, end: number, hash: number): string | null {
  const known = cache.find(text, start, end, hash);
  if (known >= 0) return cachedTerms[known] ?? null;
  if (cache.size >= CACHE_LIMIT) {
    cache.clear();
    cachedTerms = [];
  }
  const lower = text.slice(start, end).toLowerCase();
  const term = STOP_WORDS.has(lower) ? null : stem(lower);
  cachedTerms[cache.add(text, start, end, hash)] = term;
  return term;
}

/** Words by which a question points back at an earlier turn. */
const BACK_REFERENCES = new Set(
  "it its it's this that these those they them their there one ones he she him her".split(' '),
);

/**
 * How much the terms of earlier turns count next to the query's own: fully as a lead for a
 * follow-up (a question pointing back, "how do I clean it?", or with at most one term of its
 * own), barely for a question that stands on its own, so a new topic is not pulled back.
 */
export function contextWeight(query: string): number {
  const words = tokenize(query.toLowerCase());
  const own = termsOf(query).length;
  const pointsBack =
    words.some((word) => BACK_REFERENCES.has(word)) || /^\s*(and|also)\b/i.test(query);
  return pointsBack || own <= 1 ? 0.35 : 0.1;
}
