// The extractive answer writer: without a language model, the answer is the source itself.
// The best passage that retrieval trusts (its coverage of the question, one calibrated signal)
// is quoted as written: its best window of whole sentences, items, rows and code (passage.ts),
// introduced by its source's name and cited. A second passage joins only when retrieval
// ranked it nearly as high (in a follow-up, by the question's own words too) and it comes from
// another section. Nothing trusted: "not found".
import { citePassages } from './cite.js';
import type { ComposedAnswer, Passage } from './types.js';

export const NOT_FOUND_ANSWER = 'I could not find that in my sources.';

/**
 * The coverage a passage needs to be trusted (see Passage.coverage): chosen on the eval's dev
 * split as the value that declines unanswerable questions without declining answerable ones.
 */
const CONFIDENT = 0.6;
/** The best-ranked passages among which a trusted one is looked for: retrieval's top 3. */
const CONSIDERED = 3;
/**
 * A second passage must score at least this share of the first's to be worth reading too:
 * chosen on the dev sets (0.9 showed it too rarely; 0.7 and below added answers ending badly
 * and pushed the median towards the 120-word budget).
 */
const SECOND_RATIO = 0.8;

export interface ComposeOptions {
  citations: boolean;
}

/** The passage an answer is written from: the best-ranked of the top 3 that is trusted. */
export function trustedPassage(passages: readonly Passage[]): Passage | undefined {
  return passages.slice(0, CONSIDERED).find((p) => (p.coverage ?? 0) >= CONFIDENT);
}

const sectionKey = (p: Passage) => `${p.sourceUuid}\n${p.section ?? ''}`;

export function composeAnswer(
  _query: string,
  passages: Passage[],
  options: ComposeOptions,
): ComposedAnswer {
  const best = trustedPassage(passages);
  if (best === undefined) return { text: NOT_FOUND_ANSWER, citeData: {} };
  const second = passages.find(
    (p) =>
      p !== best &&
      sectionKey(p) !== sectionKey(best) &&
      p.score >= SECOND_RATIO * best.score &&
      (p.askedScore ?? p.score) >= SECOND_RATIO * (best.askedScore ?? best.score) &&
      (p.coverage ?? 0) >= CONFIDENT,
  );
  const chosen = second === undefined ? [best] : [best, second];
  const cited = citePassages(passages);
  const citeData: ComposedAnswer['citeData'] = {};
  const texts = chosen.map((passage) => {
    const entry = cited.find((c) => c.passage === passage)!;
    const marker = options.citations ? ` [${entry.key}]` : '';
    if (options.citations) citeData[entry.key] = entry.entry;
    const window = passage.window ?? passage.text;
    if (passage.type === 'qa') return `${window}${marker}`;
    const name = passage.title.trim() || passage.fileName.trim() || 'one of my sources';
    // Prose reads on from the introduction; a list, table or code starts on its own line.
    const joint = /^(?:```|~~~|[-*+] |\d+[.)] |\|)/.test(window) ? '\n\n' : ' ';
    return `According to ${name}${marker}:${joint}${window}`;
  });
  return { text: texts.join('\n\n'), citeData };
}

/**
 * Cuts a text into pieces of a few words for streaming; whitespace stays exactly where it
 * was, so pieces.join('') === text.
 */
export function splitIntoPieces(text: string, wordsPerPiece = 3): string[] {
  const pieces: string[] = [];
  let current = '';
  let words = 0;
  for (const token of text.match(/\s+|\S+/g) ?? []) {
    if (/\S/.test(token) && words === wordsPerPiece) {
      pieces.push(current);
      current = '';
      words = 0;
    }
    current += token;
    if (/\S/.test(token)) words++;
  }
  if (current !== '') pieces.push(current);
  return pieces;
}
