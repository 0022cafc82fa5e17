// What the shape of a question says about which unit answers it, beyond the words it shares
// with the unit. Two shapes are read:
// - a definition ("what is X", "what does X do", "tell me about X"): answered by a sentence
//   with X as its subject ("X puts …", "X is …") or by the lead of a section titled X, not by
//   any sentence that merely names X (when X is the corpus's own name, every sentence does);
// - a how-to ("how do I install X"): answered by the steps, so a unit introducing a code block
//   whose command holds a word of the question is the procedure itself ("On a fresh machine:"
//   over `npm install`), while a quoted string in that code is data, not the command.
import { termsOf, tokenize } from './terms.js';
import type { Unit } from './units.js';

/** Longest subject (in terms) a definition question is read for. */
const MAX_SUBJECT_TERMS = 3;

const DEFINITION_FORMS = [
  /^\s*(?:what|who)\s*(?:'s|’s|\s(?:is|are|was|were))\s+(.+?)[\s?.!]*$/i,
  /^\s*what\s+(?:does|do|did)\s+(.+?)\s+do(?:\s+\p{L}+ly)?[\s?.!]*$/iu,
  /^\s*(?:tell\s+me\s+(?:more\s+)?about|define|explain|describe)\s+(.+?)[\s?.!]*$/i,
];

/** Words a chat question ends on that are not part of what it asks about. */
const FILLER = /(?:\s+(?:used\s+for|good\s+for|for|about|all\s+about|\p{L}+ly))+$/iu;

/** "X in Y" asks what X is within Y (a product, a package): the subject is X. */
const WITHIN = /\s+(?:in|inside|within|with)\s+\S+(?:\s+\S+)?$/i;

/** Words a document's title carries besides its name ("p-queue-README.md" names p-queue). */
const TITLE_WORDS = new Set(termsOf('readme md mdx txt docs doc documentation guide index'));

/**
 * Whether a source's title names the subject of a definition question: the title's own words
 * (without README, .md and the like) are all among the subject's.
 */
export function titleNames(title: string, subject: readonly string[]): boolean {
  const name = termsOf(title).filter((term) => !TITLE_WORDS.has(term));
  return name.length > 0 && name.every((term) => subject.includes(term));
}

/** The terms of what a definition question asks about, or undefined for another question. */
export function definitionSubject(query: string): string[] | undefined {
  for (const form of DEFINITION_FORMS) {
    const subject = form.exec(query.trim())?.[1]?.replace(WITHIN, '').replace(FILLER, '');
    if (subject === undefined) continue;
    const terms = [...new Set(termsOf(subject))];
    return terms.length > 0 && terms.length <= MAX_SUBJECT_TERMS ? terms : undefined;
  }
  return undefined;
}

/** Words that, right after the subject, make it the subject of a verb. */
const LINKING = new Set(
  'is are was were has have had can could will does do lets helps makes provides gives'.split(' '),
);
const ARTICLE = new Set(['the', 'a', 'an']);

/** Whether a word reads as a verb in the third person ("puts", "answers", not "class"). */
const isVerbLike = (word: string) =>
  LINKING.has(word) || (/^\p{Ll}{3,}s$/u.test(word) && !/(?:ss|us|is)$/.test(word));

/**
 * Whether the sentence opens with the subject as a plain word (not a code span or a quote)
 * followed by a verb: "chatbridge puts …", "The bridge is …".
 */
export function leadsWithSubject(text: string, subject: readonly string[]): boolean {
  const plain = text.replace(/^[*_]+/, '');
  if (!/^\p{L}|^\p{N}/u.test(plain)) return false; // `chatbridge start` is a command, not X
  const words = tokenize(plain).map((word) => word.toLowerCase());
  let at = ARTICLE.has(words[0] ?? '') ? 1 : 0;
  const wanted = new Set(subject);
  const seen = new Set<string>();
  // The subject's words, in any order, may carry stop words between them ("the state of X").
  for (; at < words.length && seen.size < wanted.size; at++) {
    const terms = termsOf(words[at]!);
    if (terms.length === 0) continue;
    if (!wanted.has(terms[0]!)) return false;
    seen.add(terms[0]!);
  }
  return seen.size === wanted.size && isVerbLike(words[at] ?? '');
}

/**
 * Whether the unit opens a section about the subject: it is the first thing said under a
 * heading made of the subject's words ("## Interceptors", "#### Summary" for "Summary
 * metric"), or under a document's title that names the subject ("# The `BigInt` primitive
 * type"). The first words under such a heading say what the subject is; later ones say how
 * it is used.
 */
export function opensSubjectSection(unit: Unit, subject: readonly string[]): boolean {
  const heading = unit.blocks[unit.block - 1];
  if (unit.sentence !== 0 || heading?.kind !== 'heading') return false;
  const words = new Set(termsOf(heading.text));
  const named = subject.filter((term) => words.has(term)).length;
  if (words.size === 0 || named === 0) return false;
  const onlySubject = named === words.size && named * 2 >= subject.length;
  const titleAbout = heading.depth === 1 && named === subject.length;
  return onlySubject || titleAbout;
}

const HOW_TO =
  /^\s*(?:(?:and|so|ok|okay|also|then|but)\s+)?how\s+(?:do|does|can|could|should|would|to|may|might)\b/i;

export const isHowTo = (query: string) => HOW_TO.test(query);

/** Quoted strings and shell comments in a code block: data and remarks, not the command. */
const CODE_DATA = /'[^'\n]*'|"[^"\n]*"|(?:^|\s)#.*$/gm;
/** Where a camelCase name splits into its words: readFileSync → read, File, Sync. */
const CAMEL_HUMP = /(?<=\p{Ll})(?=\p{Lu})/u;
/** A bare word of a command line ("install" in `npm install`), not a path, URL or variable. */
const COMMAND_WORD = /^\p{L}[\p{L}-]*$/u;

/**
 * The terms of the command words of the code block a unit introduces (none for a carried
 * list): `export CHATBRIDGE_URL=…` runs "export", it does not run "chatbridge".
 */
export function commandTerms(unit: Unit): Set<string> {
  if (unit.carried === undefined || unit.carriedUnits.length > 0) return new Set();
  const body = unit.carried.replace(/^.*\n|\n.*$/g, ''); // the fences
  // Calls count by their names' words too: `yaml.load(fs.readFileSync(…))` loads and reads.
  const words = body
    .replace(CODE_DATA, ' ')
    .replace(/\S*:\/\/\S*|\b[A-Z][A-Z0-9_]*=\S*/g, ' ') // addresses, variables set: data
    .split(/[\s.()[\]{},;=:<>!&|+*/]+/)
    .flatMap((word) => [word, ...word.split(CAMEL_HUMP)]);
  return new Set(termsOf(words.filter((word) => COMMAND_WORD.test(word)).join(' ')));
}
