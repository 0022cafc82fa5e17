// A question asked the way a Q&A pair asks it is answered with the pair's whole answer, as the
// admin wrote it: never cut to a sentence, never the question echoed back (a long answer spans
// several chunks, and the composer only reads the passage it was given).
import { citePassages } from './cite.js';
import { termsOf } from './terms.js';
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

/** What share of the question's words a pair must hold to answer a paraphrase of its question. */
const HOLDS_QUESTION = 0.5;

/** Whether a pair's text holds at least half of the question's words (in any form). */
export function holdsTheQuestion(query: string, pairText: string): boolean {
  const asked = new Set(termsOf(query));
  if (asked.size === 0) return false;
  const held = new Set(termsOf(pairText));
  return [...asked].filter((term) => held.has(term)).length / asked.size >= HOLDS_QUESTION;
}

/** The pair's answer as the reply, cited to the pair's passage when citations are on. */
export function qaAnswer(answer: string, passage: Passage, citations: boolean): ComposedAnswer {
  const text = answer.trim();
  if (!citations) return { text, citeData: {} };
  const [cited] = citePassages([passage]);
  return { text: `${text} [${cited!.key}]`, citeData: { [cited!.key]: cited!.entry } };
}
