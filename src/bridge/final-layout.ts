// Lays the final answer out over messages once the stream is over: which text each message
// ends with, given the messages that were already finished early (rolled over for age), and
// what the last message that could be posted ends with when the ones after it could not.
import { incompleteNotice } from './notices.js';
import { splitText } from './split.js';
import type { Notice } from './types.js';

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

/** One message's final text and where it starts in the final answer. */
export interface PlannedText {
  /** "" for a notice-only message, CONTINUATION_MARKER for one the answer no longer needs. */
  text: string;
  /** Where its body starts in the final text (the text's end for "" and markers). */
  start: number;
}

export interface FinalPlan {
  /** Final text of each message still to finish, in order. */
  texts: PlannedText[];
}

/** Room a notice takes under a message's text (the adapter adds a line break and a mark). */
export function noticeReserve(notice: Notice | undefined): number {
  return notice ? notice.text.length + 4 : 0;
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
  const texts: PlannedText[] = splitText(finalText, budget, {
    from,
    lastReserve: options.lastReserve,
  })
    .filter((part) => part.text.trim() !== '')
    .map((part) => ({ text: part.text, start: part.start }));
  const end = finalText.length;
  while (texts.length < options.openCount) texts.push({ text: CONTINUATION_MARKER, start: end });
  if (texts.length === 0 && options.needsOne) texts.push({ text: '', start: end });
  return { texts };
}

export interface FoldedText {
  text: string;
  notice?: Notice;
  /** Whether everything from `start` fit: nothing of the answer is missing. */
  complete: boolean;
}

/**
 * The final state of the last message that could be posted when the ones after it could not:
 * all the text from `start` (where its own part begins) if it fits beside the notice; else as
 * much as fits, cut at a natural boundary, ending with a notice that the rest is missing.
 */
export function foldRest(
  finalText: string,
  budget: number,
  start: number,
  notice: Notice | undefined,
): FoldedText {
  // Trailing blank space is not worth a part of its own (planFinal drops such parts too).
  const text = finalText.trimEnd();
  const from = Math.min(start, text.length);
  const whole = splitText(text, budget, { from, lastReserve: noticeReserve(notice) });
  if (whole.length === 1) {
    return { text: whole[0]!.text, ...(notice ? { notice } : {}), complete: true };
  }
  const incomplete = incompleteNotice(notice);
  const room = budget - Math.min(noticeReserve(incomplete), Math.floor(budget / 2));
  const [cut] = splitText(text, room, { from });
  return { text: cut?.text ?? '', notice: incomplete, complete: false };
}
