// Makes a half-written answer safe to show: an open code block is closed, an unmatched `**` or
// inline-code backtick is closed, and a link still being written ("[text](ur") is hidden until
// it is complete. Used on intermediate updates only; the final text is shown as stored.
//
// Growth rule: while the raw text only grows, the safe body only grows too (it never takes back
// text it showed), so a platform that can only append (Slack's native stream) keeps appending.
// Only the closers at the very end come and go. That is why what may still turn into markup is
// held back rather than shown and later hidden: a "[text]" that may get its "(url)", a run of
// "*", "`" or "~" that may become "**" or a fence, whitespace inside an open bold.
//
// Not remend (Chat SDK's repair, checked at 1.4.0): it returns one repaired string, not a body
// that only grows plus closers, so an append-only surface would be asked to take text back; it
// leaves an open code fence open ("```ts\nconst a" comes back as is: Streamdown draws those
// itself, Slack and Discord do not); and a link in progress becomes
// "[text](streamdown:incomplete-link)", or its text without brackets, both later replaced rather
// than extended. Splitting (split.ts) needs the fences' positions, which remend does not give.
import { scanFences } from './fences.js';

/** The safe view of a text: `body` (a prefix of the text) followed by `closers`. */
export interface SafeView {
  /** What of the text may be shown; only ever extends while the text grows. */
  body: string;
  /** Markers appended to close what body leaves open: "\n```" / "```", "`", "**". */
  closers: string;
}

// A "[" further back than this is prose, not a link in progress: show it.
const MAX_PENDING_LINK = 160;

export function safeMarkdown(text: string): string {
  const view = safeMarkdownParts(text);
  return view.body + view.closers;
}

export function safeMarkdownParts(text: string): SafeView {
  const regions = scanFences(text);
  const last = regions[regions.length - 1];
  if (last && last.closeStart === undefined) {
    // The opener line itself is still being written: hide it (not its indent, which may have
    // been shown already) until its newline arrives.
    if (last.contentStart >= text.length && !text.endsWith('\n')) {
      const indent = text.slice(last.start).length - text.slice(last.start).trimStart().length;
      return safeMarkdownParts(text.slice(0, last.start + indent));
    }
    return { body: text, closers: `${text.endsWith('\n') ? '' : '\n'}${last.closer}` };
  }
  const proseStart = last?.closeStart === undefined ? 0 : lineEnd(text, last.closeStart);
  return closeInline(hidePendingLink(text, proseStart), proseStart);
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline === -1 ? text.length : newline + 1;
}

/** Drops a trailing "[text", "[text]" or "[text](partial-url" (outside inline code). */
function hidePendingLink(text: string, from: number): string {
  const open = text.lastIndexOf('[');
  if (open < from || text.length - open > MAX_PENDING_LINK) return text;
  if (insideInlineCode(text, from, open)) return text;
  const tail = text.slice(open);
  // "[text]" at the very end may still get its "(url)": it waits for the next character.
  const pending = /^\[[^\]\n]*\]?$/.test(tail) || /^\[[^\]\n]*\]\([^)\s]*$/.test(tail);
  return pending ? text.slice(0, open) : text;
}

function insideInlineCode(text: string, from: number, pos: number): boolean {
  let inCode = false;
  for (let i = from; i < pos; i++) if (text[i] === '`') inCode = !inCode;
  return inCode;
}

/** Closes an unmatched inline-code backtick and an unmatched "**" in the prose after `from`. */
function closeInline(text: string, from: number): SafeView {
  // A trailing run of "*", "`" or "~" may still become "**", a closer or a fence: held back
  // until the next character says which (a closer it would have been is added below anyway).
  const held = /[*`~]+$/.exec(text.slice(from));
  const body = held ? text.slice(0, text.length - held[0].length) : text;
  let inCode = false;
  let boldAt = -1;
  for (let i = from; i < body.length; i++) {
    const ch = body[i];
    if (ch === '`') {
      inCode = !inCode;
    } else if (!inCode && ch === '*' && body[i + 1] === '*') {
      boldAt = boldAt === -1 ? i : -1;
      i += 1;
    }
  }
  if (inCode) return { body, closers: boldAt === -1 ? '`' : '`**' };
  if (boldAt === -1) return { body, closers: '' };
  // "**text **" would not render as bold: whitespace at the end of the bold text waits.
  const content = body.slice(boldAt + 2).trimEnd();
  if (content === '') return { body: body.slice(0, boldAt), closers: '' };
  return { body: body.slice(0, boldAt + 2) + content, closers: '**' };
}
