// Intl.Segmenter, a window at a time. Node 20's V8 gives every segment it returns an `input`
// holding a fresh copy of the whole text being segmented: over a long text that is quadratic
// in time and memory (4,000 words of one question took 0.3 s; a 640 KB paragraph cut into
// sentences exhausted a 4 GB heap). Segmented in windows of about WINDOW characters, each copy
// is the window's size, so the work grows with the text's length. Only segments that end at
// least LOOKAHEAD characters before a window's end are taken from it (ICU's word and sentence
// rules decide a boundary from the next few characters); the next window starts where the last
// one taken ends. The segments are the whole text's, except where a rule would have looked
// further ahead than that (a sentence cut before a long run of figures, at worst).

/** Intl.Segmenter's segment data less `input`, with `index` into the whole text. */
export type Segment = Omit<Intl.SegmentData, 'input'>;

const words = new Intl.Segmenter(undefined, { granularity: 'word' });
const sentences = new Intl.Segmenter(undefined, { granularity: 'sentence' });

/** A text's words and what is between them, as Intl.Segmenter finds them (`isWordLike`). */
export const wordSegmentsOf = (text: string): Generator<Segment> => segmentsOf(words, text);

/** A text's sentences, each with the space after it, as Intl.Segmenter finds them. */
export const sentencesOf = (text: string): Generator<Segment> => segmentsOf(sentences, text);

const WINDOW = 1024;
const LOOKAHEAD = 64;

export function* segmentsOf(
  segmenter: Intl.Segmenter,
  text: string,
  window = WINDOW,
): Generator<Segment> {
  let start = 0;
  let size = window;
  while (start < text.length) {
    const end = Math.min(text.length, start + size);
    const last = end === text.length;
    const settled = end - LOOKAHEAD;
    let next = start;
    for (const data of segmenter.segment(text.slice(start, end))) {
      const index = start + data.index;
      if (!last && index + data.segment.length > settled) break;
      yield { segment: data.segment, index, isWordLike: data.isWordLike };
      next = index + data.segment.length;
      // A grown window has done its part with the long segment: the rest in windows of size.
      if (!last && size > window) break;
    }
    if (last) return;
    // One segment fills the window (a very long sentence): look further, then back to size.
    if (next === start) {
      size *= 2;
      continue;
    }
    start = next;
    size = window;
  }
}
