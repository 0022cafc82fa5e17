// The passage an extractive answer shows: the section around the unit that answers best, read
// on from that unit in document order (the rest of its paragraph, the code block or list it
// introduces, the paragraphs after it) until about WINDOW_WORDS words, the section's end or
// the passage's end. Only whole sentences, items, rows and code blocks are taken, so every
// sentence ends where its source ended it and every fence is closed.
import type { Block } from './markdown.js';
import { splitSentences } from './sentences.js';
import type { Unit } from './units.js';

/** About as long as the passage a reader takes in at a glance. */
export const WINDOW_WORDS = 110;
const LABEL = /^(?:answer|a)\s*:\s*/i;
/** A code block longer than this many lines ends the window after it. */
const LONG_CODE_LINES = 40;

const wordCount = (text: string) => text.split(/\s+/).filter((word) => word !== '').length;

/** A table row as a line a chat shows: "name: value — header: cell; …". */
export function rowLine(block: Block): string {
  const [subject = '', value = '', ...rest] = block.cells ?? [];
  const labelled = rest
    .map((cell, i) =>
      cell === '' ? '' : `${block.header?.[i + 2] ?? ''}: ${cell}`.replace(/^: /, ''),
    )
    .filter((cell) => cell !== '');
  const main = [subject, value].filter((cell) => cell !== '').join(': ');
  // A dash, not parentheses: the row's last cell ends the line as its source ended it.
  return labelled.length === 0 ? main : `${main} — ${labelled.join('; ')}`;
}

export interface Part {
  text: string;
  /** Lines of one list or table follow each other without a blank line. */
  line: boolean;
  /** Sentences of a paragraph (not a heading, code, list or table). */
  prose?: boolean;
}

/** The window of text that `lead` opens (see the note at the top), as chat Markdown. */
export function windowFrom(
  lead: Unit,
  budget = WINDOW_WORDS,
  /** Reads on past headings while shorter than this (a document's opening: a tagline alone). */
  minWords = 0,
): Part[] {
  // An option of a long code block answers alone, as the lines it is (see code-entries.ts).
  if (lead.kind === 'entry') return [{ text: lead.text, line: false }];
  const { blocks } = lead;
  const sectionDepth = depthAt(blocks, lead.block);
  const parts: Part[] = [];
  let words = 0;
  const take = (text: string, line = false) => {
    parts.push({ text, line });
    words += wordCount(text);
  };
  for (let b = lead.block; b < blocks.length && words < budget; b++) {
    const block = blocks[b]!;
    switch (block.kind) {
      case 'heading':
        // A heading as the lead introduces the code under it ("Install:" over `npm i`), and a
        // deeper one opens a part of the lead's section ("##### Configuration" under "####
        // Summary"; under a document's title, every section is deeper: each is its own); any
        // other heading starts another section, which the question did not pick.
        if (
          b !== lead.block &&
          !(sectionDepth > 1 && block.depth !== undefined && block.depth > sectionDepth) &&
          countWords(trimmed(parts)) >= minWords
        )
          return trimmed(parts);
        take(`**${block.text}**`);
        continue;
      case 'code':
        take(block.text);
        if (block.text.split('\n').length > LONG_CODE_LINES) return trimmed(parts);
        continue;
      case 'row':
        // A row answers alone (an option and its default); the next rows are other options.
        if (b === lead.block) return [{ text: rowLine(block), line: false, prose: true }];
        take(`- ${rowLine(block)}`, true);
        continue;
      case 'item':
        take(`${block.bullet ?? '-'} ${block.text}`, true);
        continue;
      case 'paragraph': {
        const sentences = splitSentences(block.text).filter((s) => s !== '');
        const from = b === lead.block ? lead.sentence : 0;
        // "A: …" labels an answer in a pasted Q&A text: the label is not part of the answer.
        if (b === lead.block) sentences[from] = sentences[from]!.replace(LABEL, '');
        const taken: string[] = [];
        for (const sentence of sentences.slice(from)) {
          if (taken.length > 0 && words + wordCount(sentence) > budget) break;
          taken.push(sentence);
          words += wordCount(sentence);
        }
        if (taken.length > 0) parts.push({ text: taken.join(' '), line: false, prose: true });
        if (from + taken.length < sentences.length) return trimmed(parts);
        continue;
      }
    }
  }
  return trimmed(parts);
}

/** The depth of the heading whose section holds block `at` (7, deeper than any, if unknown). */
function depthAt(blocks: readonly Block[], at: number): number {
  for (let b = at - 1; b >= 0; b--) if (blocks[b]!.kind === 'heading') return blocks[b]!.depth ?? 7;
  return 7;
}

const countWords = (parts: Part[]) => parts.reduce((sum, part) => sum + wordCount(part.text), 0);

/** Words that are only links, images' leftovers, emoji and separators: a page's navigation. */
const LINKS_ONLY =
  /^(?:[-*_\d.)\s•|·–—]|\[[^\]]*\]\([^)]*\)|<https?:[^>]*>|\p{Extended_Pictographic}|\uFE0F)*$/u;

/** A line of navigation: short names between separators ("Docs • Discord • Bluesky"). */
const isNavigationLine = (part: Part) => {
  const pieces = part.text.split(/\s[•|·]\s/);
  return (
    pieces.length >= 3 && pieces.every((piece) => wordCount(piece) <= 3 && !/[.!?:;]$/.test(piece))
  );
};

/** A contents line: a list item of a few words with no sentence in it ("- 📚 Examples"). */
export const isContentsLine = (part: Part) =>
  part.line && wordCount(part.text) <= 5 && !/[.!?:;]["'”’)\]`*_]*$/.test(part.text);

/**
 * Navigation at the end of a window says nothing: link-only lines, and a run of three or more
 * contents lines (a table of contents), are left off.
 */
export function trimmed(parts: Part[]): Part[] {
  let end = parts.length;
  while (end > 1 && (LINKS_ONLY.test(parts[end - 1]!.text) || isNavigationLine(parts[end - 1]!)))
    end--;
  let run = end;
  while (run > 1 && isContentsLine(parts[run - 1]!)) run--;
  // Three contents lines are a table of contents; one or two right after prose, a list the
  // window only started ("- Class: WebSocketServer").
  if (end - run >= 3 || (end > run && parts[run - 1]?.prose === true)) end = run;
  const kept = parts.slice(0, end);
  // A lead-in ("… from an archive:") whose code did not fit says nothing without it.
  const last = kept.at(-1);
  if (kept.length > 1 && last?.prose && last.text.endsWith(':')) {
    const sentences = splitSentences(last.text);
    if (sentences.length > 1)
      kept[kept.length - 1] = { ...last, text: sentences.slice(0, -1).join(' ') };
    else kept.pop();
  }
  return kept;
}

/** The parts as one Markdown text. */
export function joinParts(parts: Part[]): string {
  let text = '';
  parts.forEach((part, i) => {
    if (i > 0) text += part.line && parts[i - 1]!.line ? '\n' : '\n\n';
    text += part.text;
  });
  return text;
}
