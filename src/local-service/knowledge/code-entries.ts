// The entries of a long code block that documents options one by one (axios's request config,
// a webpack config): each option's line with the comments over it and after it. Why: "what's
// the default timeout?" is answered by `timeout: 1000, // default is 0 (no timeout)` and its
// comment, a few lines of a block too long to show whole (and often cut from the sentence that
// introduces it, in a chunk of its own).
//
// Read line by line, not by a language's parser: documentation's code is any language and
// often not valid code at all (`{ … }`, `/* ... */` standing for what is left out).
import { fenced } from './markdown-source.js';

/** Shorter blocks are shown whole with the sentence that introduces them. */
export const MIN_ENTRY_BLOCK_LINES = 10;
/** An option whose value spans more lines than this is not an entry (it is a program). */
const MAX_VALUE_LINES = 6;

export interface CodeEntry {
  /** The entry as a fenced block of the original's language, indentation kept relative. */
  snippet: string;
  /** The words it says: its comments and the option's name. */
  words: string;
}

const COMMENT = /^\s*(?:\/\/+|#+|\/\*+|\*+\/?|--)\s?(.*?)\s*(?:\*\/)?$/;
/** `name: value`, `'name': value`, `name = value` (an option being set). */
const OPTION = /^\s*['"]?([A-Za-z_$][\w$-]*)['"]?\s*[:=]\s*(\S.*)$/;
const TRAILING_COMMENT = /\s(?:\/\/|#)\s?(.*)$/;

/** The option entries of a fenced code block (none for a short block). */
export function codeEntries(fence: string): CodeEntry[] {
  const lines = fence.split('\n');
  const open = /^(?:`{3,}|~{3,})(.*)$/.exec(lines[0] ?? '');
  if (open === null || lines.length - 2 < MIN_ENTRY_BLOCK_LINES) return [];
  const lang = open[1]!;
  const body = lines.slice(1, -1);
  const entries: CodeEntry[] = [];
  let comments: string[] = [];
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    if (line.trim() === '') {
      comments = [];
      continue;
    }
    if (COMMENT.test(line) && !OPTION.test(line)) {
      comments.push(line);
      continue;
    }
    const option = OPTION.exec(line);
    if (option === null) {
      comments = [];
      continue;
    }
    const value = valueLines(body, i);
    const trailing = TRAILING_COMMENT.exec(line)?.[1];
    // An option nobody wrote a word about is data ("deep": {…}), not documentation.
    if (value === undefined || (comments.length === 0 && trailing === undefined)) {
      comments = [];
      continue;
    }
    const taken = [...comments, ...value];
    const said = [...comments.map((c) => COMMENT.exec(c)?.[1] ?? ''), option[1]!];
    if (trailing !== undefined) said.push(trailing);
    entries.push({ snippet: fenced(dedented(taken), lang), words: said.join('\n') });
    comments = [];
  }
  return entries;
}

/**
 * The option's line, and the lines of a value it opens ("{", "[", "(") up to its close;
 * undefined when the value runs on too long to show as one entry.
 */
function valueLines(body: readonly string[], at: number): string[] | undefined {
  const first = body[at]!;
  const depthOf = (text: string) =>
    (text.match(/[{[(]/g) ?? []).length - (text.match(/[}\])]/g) ?? []).length;
  let depth = depthOf(first.replace(TRAILING_COMMENT, ''));
  if (depth <= 0) return [first];
  const taken = [first];
  for (let i = at + 1; i < body.length && taken.length <= MAX_VALUE_LINES; i++) {
    taken.push(body[i]!);
    depth += depthOf(body[i]!.replace(TRAILING_COMMENT, ''));
    if (depth <= 0) return taken;
  }
  return undefined;
}

/** The lines without the indentation they all share. */
function dedented(lines: string[]): string {
  const indent = Math.min(...lines.map((line) => /^\s*/.exec(line)![0].length));
  return lines.map((line) => line.slice(indent)).join('\n');
}
