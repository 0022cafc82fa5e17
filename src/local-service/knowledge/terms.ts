// Turning text into terms for the answer writer and the agent router (the search itself reads
// words with FTS5's own tokenizer, see fts-query.ts): split on anything that is not a letter or digit, lowercase, drop
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

/** Whether a lowercase word is an English stop word (never searched on its own). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** One token → its term, or null for a stop word. */
export function normalizeTerm(token: string): string | null {
  const lower = token.toLowerCase();
  return STOP_WORDS.has(lower) ? null : stem(lower);
}

/**
 * Whether two terms are forms of one word the stemmer did not bring together ("remind" and
 * "reminder", "intercept" and "interceptor"): one starts the other, both at least 4 letters.
 */
export function sharesStart(a: string, b: string): boolean {
  return a.length >= 4 && b.length >= 4 && (a.startsWith(b) || b.startsWith(a));
}

/** The terms of a text, in order, stop words removed (duplicates kept). */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term !== null) terms.push(term);
  }
  return terms;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every string one edit away from a word: deleted, swapped, changed or added letters. */
export function oneEditAway(word: string): string[] {
  const alphabet = [...new Set([...LETTERS, ...word])];
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const [head, tail] = [word.slice(0, i), word.slice(i)];
    if (tail) out.add(head + tail.slice(1));
    if (tail.length > 1) out.add(head + tail[1] + tail[0] + tail.slice(2));
    for (const letter of alphabet) {
      if (tail) out.add(head + letter + tail.slice(1));
      out.add(head + letter + tail);
    }
  }
  out.delete(word);
  return [...out];
}

/** The second words of the pairs joinedPairs reads as one: a verb's particle, "only". */
const PARTICLES = new Set(['up', 'out', 'in', 'on', 'off', 'down', 'over', 'only']);

/**
 * Two adjacent words of a text as one where the second is a particle ("back up" → "backup",
 * "log in" → "login", "time out" → "timeout", "read only" → "readonly", "plug in" → "plugin"),
 * each pair once, in order: documentation writes such words together that a question writes
 * apart (two words that each mean something, "permessage deflate", and a pronoun with its
 * noun, "my env", stay two). Only letters; the caller keeps the ones its sources hold.
 */
export function joinedPairs(text: string): { words: [string, string]; joined: string }[] {
  const tokens = tokenize(text.toLowerCase());
  const pairs: { words: [string, string]; joined: string }[] = [];
  const seen = new Set<string>();
  for (let i = 0; i + 1 < tokens.length; i++) {
    const [a, b] = [tokens[i]!, tokens[i + 1]!];
    const joined = `${a}${b}`;
    if (!/^\p{L}+$/u.test(joined) || a.length < 2 || b.length < 2 || joined.length < 5) continue;
    if (!PARTICLES.has(b)) continue;
    if (seen.has(joined)) continue;
    seen.add(joined);
    pairs.push({ words: [a, b], joined });
  }
  return pairs;
}
