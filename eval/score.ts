// How one answer is judged: its key facts, whether it is a "could not find" notice, and the
// ways its text can end badly (a sentence cut where its source goes on, an open code fence,
// markdown left over from the source). Pure functions, so the floor passages are judged by the
// same words as the service's answers.

/** Lower case, every run of whitespace one space. */
export const fold = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** The service's citation markers ([3.4]): a reader sees them as footnote numbers, not words. */
const MARKER = /\s?\[\d+(?:\.\d+){1,2}\]/g;
export const withoutMarkers = (text: string): string => text.replace(MARKER, '');

/**
 * Whether the text holds the key fact: a plain string is looked for case-insensitively with
 * whitespace folded; "/…/" is a regular expression tried (case-insensitively) on the folded text.
 */
export function hasFact(text: string, fact: string): boolean {
  const folded = fold(withoutMarkers(text));
  if (fact.length > 2 && fact.startsWith('/') && fact.endsWith('/')) {
    return new RegExp(fact.slice(1, -1), 'i').test(folded);
  }
  return folded.includes(fold(fact));
}

/** The honest "nothing found" answer, in the local service's words or close to them. */
export const isNotFound = (text: string): boolean =>
  /\bcould\s*(?:not|n['’]t)\s+find\b|\bno (?:relevant )?(?:information|passages?) (?:about|on|for)\b/i.test(
    text,
  );

export type ProblemKind =
  | 'cut-sentence' // a sentence ends where its source sentence goes on ("calls the.")
  | 'unsourced-ending' // a sentence's last words appear nowhere in the corpus
  | 'ends-mid-sentence' // the answer's last character is not the end of a sentence or block
  | 'open-fence' // an odd number of ``` fence lines
  | 'empty-code-block' // a code block with nothing in it (the code was left behind)
  | 'badge' // [![…  (a badge or linked image)
  | 'image' // ![alt](…)
  | 'reference-link' // [text][ref] or a "[ref]: url" definition line
  | 'anchor-link' // ](#anchor), a table-of-contents link that leads nowhere in a chat
  | 'escape' // a markdown backslash escape such as \. or \_
  | 'html' // a raw HTML tag
  | 'heading' // a "## " heading marker inside running text
  | 'admonition' // a GitHub alert label such as [!NOTE]
  | 'stray-punctuation' // a mark standing alone (": . Zod is", "dependencies. .")
  | 'unbalanced-parentheses' // more "(" than ")" in the prose
  | 'code-in-prose' // code run together into a sentence ("}); // verify jwt id var cert =")
  | 'table-remnant' // a table row's cells run into a sentence ("`wordwrap` | `80` | After")
  | 'glued-sentences'; // two sentences joined without a space ("should follow.Set to"), not so in the source

export interface Problem {
  kind: ProblemKind;
  detail: string;
}

const FENCE_LINE = /^\s*(```|~~~)/;

/** The answer's prose: fenced blocks, inline code and "According to X:" lead-ins left out. */
function proseOf(answer: string): string {
  const lines = answer.split('\n');
  const kept: string[] = [];
  let inFence = false;
  for (const line of lines) {
    if (FENCE_LINE.test(line)) {
      inFence = !inFence;
      kept.push('');
      continue;
    }
    kept.push(inFence ? '' : line);
  }
  return kept
    .join('\n')
    .replace(/`[^`\n]*`/g, 'CODE')
    .replace(/^According to [^\n]*?:\s/gm, '');
}

/**
 * Markup and debris an answer should not carry: a kind, its pattern, and whether a match is
 * excused where the source writes it so after the same word (a mark set apart by a space,
 * "Here is an example :", is the document's typography quoted as written).
 */
const JUNK: Array<[ProblemKind, RegExp, 'as written'?]> = [
  [
    'badge',
    /\[!\[|\]\(https?:\/\/[^)\s]*(?:shields\.io|badge|david-dm\.org|travis-ci|coveralls|codecov)/,
  ],
  ['image', /!\[[^\]\n]*\]\(/],
  ['reference-link', /\[[^\]\n]+\]\[[^\]\n]*\]|^\s*\[[^\]\n]+\]:\s*\S/m],
  ['anchor-link', /\]\(#[^)\n]*\)/],
  ['escape', /\\[\\`*_{}[\]()#+\-.!|<>]/],
  ['html', /<\/?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>\n]*)?\/?>/],
  ['heading', /(?:^|[^\n#])[ \t]#{1,6} \S|^#{1,6} \S/m],
  ['admonition', /\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]/i],
  // A mark standing alone (": . Zod is", "dependencies. .").
  ['stray-punctuation', /(?:^|[ \t])[.,;:!?](?=[ \t]|$)/m, 'as written'],
  ['code-in-prose', /\}\s*\)\s*;|\b(?:var|const|let) \w+ = |\bfunction\s*\(|=>\s*\{/],
  ['table-remnant', /^(?!\s*\|).*\S \| \S.*\S \| \S/m],
];

/** The first match of a JUNK pattern, skipping those the corpus writes so when that excuses them. */
function firstJunk(
  prose: string,
  pattern: RegExp,
  asWritten: boolean,
  corpus: string | undefined,
): { index: number } | undefined {
  for (const found of prose.matchAll(new RegExp(pattern.source, `${pattern.flags}g`))) {
    if (!asWritten || corpus === undefined) return found;
    const before = /(\S+)[ \t]*$/.exec(prose.slice(0, found.index + 1))?.[1];
    const written = before && normalizeForEndings(`${before} ${found[0].trim()}`);
    if (!written || !corpus.includes(written)) return found;
  }
  return undefined;
}

/**
 * Text as both sides are compared: links reduced to their words, emphasis and code ticks
 * dropped, whitespace folded but line ends kept (a line end closes a list item or a heading).
 */
export function normalizeForEndings(text: string): string {
  // A link's text may run over a line end, as a source wraps it ("[Validation and\n  Serialization](…)").
  const link = /!?\[([^\]]*)\]\([^)\n]*\)/g;
  // A reference link ([text][ref]) reads as its text, as an inline one does: the service writes
  // reference links inline, which is a cleanup, not an invented ending.
  const reference = /!?\[([^\]\n]*)\]\[[^\]\n]*\]/g;
  return (
    withoutMarkers(text)
      .replace(link, '$1')
      .replace(link, '$1')
      .replace(reference, '$1')
      // A quote's markers, as its lines wrap in the source ("is detailed in\n> [Hooks]").
      .replace(/^(?:[ \t]*>)+[ \t]?/gm, '')
      .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+/gm, '')
      .replace(/[`*]/g, '')
      // Emphasis by underscores ("_route prefixing_"), as the service writes what a source set
      // with asterisks; an underscore inside a name (snake_case) stays.
      .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gmu, '$1')
      .replace(/[ \t]*\n\s*/g, '\n')
      .replace(/[ \t]+/g, ' ')
      .toLowerCase()
  );
}

/** The answer's sentences that end in . ! or ? (fenced code and lead-ins left out). */
function sentencesOf(answer: string): string[] {
  const lines = answer.split('\n');
  const prose: string[] = [];
  let inFence = false;
  for (const line of lines) {
    if (FENCE_LINE.test(line)) inFence = !inFence;
    else if (!inFence) prose.push(line);
  }
  return (
    prose
      .join('\n')
      .replace(/^According to [^\n]*?:\s/gm, '')
      // A list item is a piece of its own, read without its marker: "4." is not a sentence, nor
      // does the next item's number end the item before it.
      .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+/gm, '\n\n')
      .split(/\n\s*\n|(?<=[.!?]["'”’)\]`*_]*)\s+(?=[A-Z0-9`"'(*[_-])/)
      .map((s) => withoutMarkers(s).trim())
      .filter((s) => /[.!?]["'”’)\]`*_]*$/.test(s))
  );
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What may follow a sentence's last words in its source for the sentence to end there. */
const ENDS_THERE = /^[)"'”’\]_]*(?:[.!?…]|[ \t]*(?:\n|\||<|$)|:[ \t]*\n)/;

/**
 * Checks one sentence's ending against the corpus: its last (up to) four words must appear
 * somewhere followed by the end of a sentence, a line end, a table cell or a tag. Words found only
 * where the source sentence goes on make a cut sentence; words found nowhere, an unsourced one.
 */
function endingProblem(sentence: string, corpus: string): Problem | undefined {
  const tokens = normalizeForEndings(sentence)
    .replace(/[)"'”’\]_]*[.!?]["'”’)\]_]*$/, '')
    .split(/[\n ]+/)
    .filter(Boolean);
  // From the third word from the end (a word has a letter or digit; "—" and ">" go along).
  let from = tokens.length;
  for (let words = 0; from > 0 && words < 3;) {
    from--;
    if (/[\p{L}\p{N}]/u.test(tokens[from]!)) words++;
  }
  const last = tokens.slice(from);
  if (last.length === 0) return undefined;
  const tail = new RegExp(last.map(escapeRe).join('[ \\n]+'), 'g');
  let seen = false;
  for (const match of corpus.matchAll(tail)) {
    seen = true;
    if (
      ENDS_THERE.test(
        corpus.slice(match.index + match[0].length, match.index + match[0].length + 8),
      )
    ) {
      return undefined;
    }
  }
  const shown = sentence.length > 90 ? `…${sentence.slice(-90)}` : sentence;
  return seen
    ? { kind: 'cut-sentence', detail: shown }
    : { kind: 'unsourced-ending', detail: shown };
}

/** Whether the whole answer stops where a sentence, a code block, a list item or a table ends. */
const CLEAN_END = /(?:[.!?…。！？]["'”’)\]*_`]*|```|~~~|\|)$/;

/**
 * Whether an answer's last line, though it has no closing mark, stops where its source's line
 * stops too (a tagline, a table cell, a list item written without a full stop): the source
 * ended it there, the answer did not cut it.
 */
function endsWhereSourceEnds(text: string, corpus: string | undefined): boolean {
  if (corpus === undefined) return false;
  const last = normalizeForEndings(text.split('\n').at(-1) ?? '').trim();
  if (last === '') return false;
  return endingProblem(last, corpus) === undefined;
}

/**
 * Every bad ending of an answer. `corpus` is normalizeForEndings() of all the text the answer
 * could have been taken from; pass undefined to skip the sentence-ending check (floor passages).
 */
export function problemsOf(answer: string, corpus: string | undefined): Problem[] {
  const problems: Problem[] = [];
  const text = withoutMarkers(answer).trim();
  if (text === '') return problems;
  const fences = text.split('\n').filter((line) => FENCE_LINE.test(line)).length;
  if (fences % 2 === 1) problems.push({ kind: 'open-fence', detail: `${fences} fence lines` });
  if (/^[ \t]*(```|~~~)[^\n]*\n(?:[ \t]*\n)*[ \t]*\1[ \t]*$/m.test(text)) {
    problems.push({ kind: 'empty-code-block', detail: 'a fence opened and closed on nothing' });
  }
  if (!CLEAN_END.test(text) && !endsWhereSourceEnds(text, corpus)) {
    problems.push({ kind: 'ends-mid-sentence', detail: `…${text.slice(-60)}` });
  }
  const prose = proseOf(text);
  for (const [kind, pattern, excuse] of JUNK) {
    const found = firstJunk(prose, pattern, excuse === 'as written', corpus);
    if (found) {
      const at = found.index;
      problems.push({
        kind,
        detail: prose.slice(Math.max(0, at - 20), at + 40).replace(/\n/g, '⏎'),
      });
    }
  }
  const opened = (prose.match(/\(/g) ?? []).length;
  const closed = (prose.match(/\)/g) ?? []).length;
  if (opened > closed) {
    problems.push({ kind: 'unbalanced-parentheses', detail: `${opened} "(" and ${closed} ")"` });
  }
  if (corpus !== undefined) {
    for (const glued of prose.matchAll(/[a-z]{2}\.[A-Z][a-z]+/g)) {
      if (!corpus.includes(glued[0].toLowerCase())) {
        problems.push({ kind: 'glued-sentences', detail: glued[0] });
        break;
      }
    }
    for (const sentence of sentencesOf(text)) {
      if (isNotFound(sentence)) continue; // the service's own words, not taken from a source
      const problem = endingProblem(sentence, corpus);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * The words of an answer a reader reads as prose: fenced code blocks and citation markers left
 * out, words counted by Intl.Segmenter (so a Chinese or Japanese answer has words too).
 */
export function proseWords(answer: string): number {
  const prose = withoutMarkers(answer).replace(
    /^[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?^[ \t]*\1[ \t]*$/gm,
    ' ',
  );
  let count = 0;
  for (const s of wordSegmenter.segment(prose)) if (s.isWordLike) count++;
  return count;
}
