// Turning text into search terms, shared by the BM25 index and the answer writer so both agree
// on what a "word" is: split on anything that is not a letter or digit, lowercase, drop
// English stop words, then a light suffix-stripping stemmer ("installing", "installed",
// "installs" → "install") so a question and a passage meet despite inflection.

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

// Stemming is the hot path of indexing: remember recent answers (bounded, cleared when full).
const cache = new Map<string, string | null>();
const CACHE_LIMIT = 200_000;

/** One token → its search term, or null for a stop word. */
export function normalizeTerm(token: string): string | null {
  const known = cache.get(token);
  if (known !== undefined) return known;
  const lower = token.toLowerCase();
  const term = STOP_WORDS.has(lower) ? null : stem(lower);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(token, term);
  return term;
}

/** The search terms of a text, in order, stop words removed (duplicates kept). */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term !== null) terms.push(term);
  }
  return terms;
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
