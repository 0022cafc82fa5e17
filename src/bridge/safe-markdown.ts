// Makes a half-written answer safe to show: an open code block is closed, an unmatched `**` or
// inline-code backtick is closed, and a link still being written ("[text](ur") is hidden until
// it is complete. Used on intermediate updates only; the final text is shown as stored.
import { scanFences } from './fences.js';

// A "[" further back than this is prose, not a link in progress: show it.
const MAX_PENDING_LINK = 160;

export function safeMarkdown(text: string): string {
  const regions = scanFences(text);
  const last = regions[regions.length - 1];
  if (last && last.closeStart === undefined) {
    // The opener line itself is still being written: hide it until its newline arrives.
    if (last.contentStart >= text.length && !text.endsWith('\n')) {
      return safeMarkdown(text.slice(0, last.start));
    }
    return `${text}${text.endsWith('\n') ? '' : '\n'}${last.closer}`;
  }
  const proseStart = last?.closeStart === undefined ? 0 : lineEnd(text, last.closeStart);
  return closeInline(hidePendingLink(text, proseStart), proseStart);
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline === -1 ? text.length : newline + 1;
}

/** Drops a trailing "[text" or "[text](partial-url" (outside inline code). */
function hidePendingLink(text: string, from: number): string {
  const open = text.lastIndexOf('[');
  if (open < from || text.length - open > MAX_PENDING_LINK) return text;
  if (insideInlineCode(text, from, open)) return text;
  const tail = text.slice(open);
  const pending = /^\[[^\]\n]*$/.test(tail) || /^\[[^\]\n]*\]\([^)\s]*$/.test(tail);
  return pending ? text.slice(0, open).replace(/[ \t]+$/, '') : text;
}

function insideInlineCode(text: string, from: number, pos: number): boolean {
  let inCode = false;
  for (let i = from; i < pos; i++) if (text[i] === '`') inCode = !inCode;
  return inCode;
}

/** Closes an unmatched inline-code backtick and an unmatched "**" in the prose after `from`. */
function closeInline(text: string, from: number): string {
  let inCode = false;
  let bold = false;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (ch === '`') {
      inCode = !inCode;
    } else if (!inCode && ch === '*' && text[i + 1] === '*') {
      bold = !bold;
      i += 1;
    }
  }
  let out = text;
  if (inCode) out += '`';
  if (bold) {
    const trimmed = out.replace(/\s+$/, '');
    out = trimmed.endsWith('**') ? trimmed.slice(0, -2).trimEnd() : `${trimmed}**`;
  }
  return out;
}
