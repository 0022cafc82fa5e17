// Splits one command line into words, shell-like: "double quotes" (backslash escapes inside),
// 'single quotes' (literal), backslash escapes outside quotes. Chat clients turn quotes into
// typographic ones, so “…” and „…” count as double quotes. A single quote only opens a quoted
// word at the start of a word or right after "=" (`--title='A b'`), so "What's up" stays one
// apostrophe rather than an unterminated quote.
import { AdminInputError } from './errors.js';
import type { ParsedLine } from './types.js';

const OPEN_DOUBLE = new Set(['"', '\u201c', '\u201e']);
const CLOSE_DOUBLE = new Set(['"', '\u201d', '\u201c']);
const ESCAPES: Record<string, string> = { n: '\n', t: '\t' };

export function parseCommandLine(line: string): ParsedLine {
  const tokens: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const chars = Array.from(line);
  while (i < chars.length) {
    const c = chars[i] as string;
    if (/\s/.test(c)) {
      if (inWord) tokens.push(word);
      word = '';
      inWord = false;
      i += 1;
      continue;
    }
    inWord = true;
    if (c === '\\') {
      const next = chars[i + 1];
      if (next === undefined) {
        throw new AdminInputError(undefined, 'the line ends with a lone backslash "\\"');
      }
      word += ESCAPES[next] ?? next;
      i += 2;
    } else if (OPEN_DOUBLE.has(c)) {
      i += 1;
      let closed = false;
      while (i < chars.length) {
        const d = chars[i] as string;
        if (CLOSE_DOUBLE.has(d)) {
          closed = true;
          i += 1;
          break;
        }
        if (d === '\\' && i + 1 < chars.length) {
          const next = chars[i + 1] as string;
          word += ESCAPES[next] ?? next;
          i += 2;
        } else {
          word += d;
          i += 1;
        }
      }
      if (!closed) throw new AdminInputError(undefined, 'a double quote (") is never closed');
    } else if (c === "'" && (word === '' || word.endsWith('='))) {
      const end = chars.indexOf("'", i + 1);
      if (end < 0) throw new AdminInputError(undefined, "a single quote (') is never closed");
      word += chars.slice(i + 1, end).join('');
      i = end + 1;
    } else {
      word += c;
      i += 1;
    }
  }
  if (inWord) tokens.push(word);
  return { tokens };
}
