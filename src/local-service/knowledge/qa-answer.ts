// A Q&A pair answers with its whole answer, as the admin wrote it: never cut to a sentence,
// never the question echoed back (a long answer spans several chunks). It answers when its
// question is the one asked, or when retrieval trusts its passage most (a paraphrase).
import { citePassages } from './cite.js';
import { termsOf } from './words.js';
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

/** The pair's answer as the reply, cited to the pair's passage when citations are on. */
export function qaAnswer(answer: string, passage: Passage, citations: boolean): ComposedAnswer {
  const text = answer.trim();
  if (!citations) return { text, citeData: {} };
  const [cited] = citePassages([passage]);
  return { text: `${text} [${cited!.key}]`, citeData: { [cited!.key]: cited!.entry } };
}
