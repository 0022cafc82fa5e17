// A question asked the way a Q&A pair asks it is answered with the pair's whole answer, as the
// admin wrote it: never cut to a sentence, never the question echoed back (a long answer spans
// several chunks, and the composer only reads the passage it was given).
import { citePassages } from './cite.js';
import { sharesStart, termsOf } from './terms.js';
import type { ComposedAnswer, Passage } from './types.js';

/** What share of each side's words the other must hold for the two questions to be the same. */
const SAME_QUESTION = 0.75;

/** Whether `query` asks what `question` asks: nearly the same words, in any order or form. */
export function asksTheSame(query: string, question: string): boolean {
  const asked = new Set(termsOf(query));
  const pair = new Set(termsOf(question));
  if (asked.size === 0 || pair.size === 0) return false;
  const shared = [...asked].filter((term) => pair.has(term)).length;
  return shared / pair.size >= SAME_QUESTION && shared / asked.size >= SAME_QUESTION;
}

/**
 * More than this share of the question's words, and at least MIN_HELD of them, a pair must
 * hold to answer a paraphrase of its question. Why so strict: a pair's whole answer given to
 * another question ("is it on by default?" answered with the reminders policy because it says
 * "default") is worse than saying nothing was found.
 */
const HOLDS_QUESTION = 0.5;
const MIN_HELD = 2;

/** A question word held by the pair: itself, or another form of it ("remind": reminders). */
const heldIn = (held: ReadonlySet<string>, term: string) =>
  held.has(term) || [...held].some((other) => sharesStart(term, other));

/** Whether a pair's text holds most of the question's words (in any form). */
export function holdsTheQuestion(query: string, pairText: string): boolean {
  const asked = new Set(termsOf(query));
  const held = new Set(termsOf(pairText));
  const found = [...asked].filter((term) => heldIn(held, term)).length;
  return found >= MIN_HELD && found / asked.size > HOLDS_QUESTION;
}

/** The pair's answer as the reply, cited to the pair's passage when citations are on. */
export function qaAnswer(answer: string, passage: Passage, citations: boolean): ComposedAnswer {
  const text = answer.trim();
  if (!citations) return { text, citeData: {} };
  const [cited] = citePassages([passage]);
  return { text: `${text} [${cited!.key}]`, citeData: { [cited!.key]: cited!.entry } };
}
