// Lays the final answer out over messages once the stream is over: which text each message
// ends with, given the messages that were already finished early (rolled over for age).
import { splitText } from './split.js';

/** Shown by a message the final answer no longer needs (it came out shorter than streamed). */
export const CONTINUATION_MARKER = '…';

const BRACKET_TOKEN = /^[ \t]?\[[^[\]\n]{1,60}\]/;

/**
 * Where `shown` (text already final in sealed messages) ends inside `final`. Footnote and marker
 * groups may differ between the two (live numbering vs stored citations), so they are skipped
 * on either side. At the first real difference the rest of `final` is taken from there: some
 * words may then appear twice, but none is lost.
 */
export function alignPrefix(shown: string, final: string): number {
  let i = 0;
  let j = 0;
  while (i < shown.length && j < final.length) {
    if (shown[i] === final[j]) {
      i += 1;
      j += 1;
      continue;
    }
    const skipShown = BRACKET_TOKEN.exec(shown.slice(i, i + 64));
    if (skipShown) {
      i += skipShown[0].length;
      continue;
    }
    const skipFinal = BRACKET_TOKEN.exec(final.slice(j, j + 64));
    if (skipFinal) {
      j += skipFinal[0].length;
      continue;
    }
    return j;
  }
  return j;
}

export interface FinalPlan {
  /** Final text of each message still to finish, in order (may be "" for a notice-only one). */
  texts: string[];
}

/**
 * The final texts for the messages after the sealed ones. `openCount` is how many of those are
 * already on screen: each must be finished, so surplus ones get CONTINUATION_MARKER.
 */
export function planFinal(
  finalText: string,
  budget: number,
  options: { sealedText?: string; openCount: number; lastReserve: number; needsOne: boolean },
): FinalPlan {
  const from = options.sealedText ? alignPrefix(options.sealedText, finalText) : 0;
  const texts = splitText(finalText, budget, { from, lastReserve: options.lastReserve })
    .map((part) => part.text)
    .filter((text) => text.trim() !== '');
  while (texts.length < options.openCount) texts.push(CONTINUATION_MARKER);
  if (texts.length === 0 && options.needsOne) texts.push('');
  return { texts };
}
