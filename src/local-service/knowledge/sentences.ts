// Sentence boundaries, shared by the chunker (to split long paragraphs) and the answer writer
// (to pick the sentences that answer). A boundary is terminal punctuation followed by
// whitespace, except after common abbreviations or a "?"/"!" that a lowercase word goes on
// from (so 'Ask "Why?" and see' stays whole); a line break is a boundary when the line looks
// finished (terminal punctuation, a short heading-like line, or a list item next).

const ABBREVIATION =
  /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|inc|ltd|st|no|fig|approx|cf)\.$/i;
const TERMINAL = /[.!?…]+["'”’)\]]*(?=\s)/g;
/** What follows a full stop that only pauses the sentence: a lowercase word. */
const CONTINUES = /^\s+\p{Ll}/u;
const LIST_ITEM = /^\s*(?:[-*•+]|\d{1,3}[.)])\s/;

/** Splits one line (or a joined paragraph) at sentence ends; pieces are trimmed, none empty. */
function splitLine(line: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (const match of line.matchAll(TERMINAL)) {
    const end = match.index + match[0].length;
    const candidate = line.slice(start, end);
    if (ABBREVIATION.test(candidate)) continue;
    // '"Why?" and then…': a question or exclamation quoted inside a sentence.
    if (!match[0].startsWith('.') && CONTINUES.test(line.slice(end))) continue;
    if (candidate.trim() !== '') pieces.push(candidate.trim());
    start = end;
  }
  const rest = line.slice(start).trim();
  if (rest !== '') pieces.push(rest);
  return pieces;
}

/** Whether a line break after `line` (followed by `next`) ends a sentence. */
function lineEndsSentence(line: string, next: string): boolean {
  const trimmed = line.trimEnd();
  if (LIST_ITEM.test(next) || LIST_ITEM.test(line)) return true;
  if (CONTINUES.test(` ${next}`)) return false;
  // A colon or semicolon at a line's end is a soft wrap in a paragraph, not an ending.
  if (/[.!?…]["'”’)\]]*$/.test(trimmed)) return true;
  return trimmed.length < 40; // a heading, a label, a table row: not a wrapped sentence
}

/**
 * The sentences of a text. Hard-wrapped lines of one paragraph are joined first, so a
 * sentence wrapped at 80 columns stays whole.
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const paragraph of text.split(/\n[ \t]*\n/)) {
    const lines = paragraph.split('\n').filter((line) => line.trim() !== '');
    let joined = '';
    lines.forEach((line, i) => {
      joined = joined === '' ? line.trim() : `${joined} ${line.trim()}`;
      const next = lines[i + 1];
      if (next === undefined || lineEndsSentence(line, next)) {
        sentences.push(...splitLine(joined));
        joined = '';
      }
    });
  }
  return sentences;
}
