// Admin answers as Discord markdown: notices with a mark, fields as bold labels, tables and
// preformatted text in code blocks. Every message stays within 2,000 characters; a block too
// long for one message continues in the next (a code block is closed and re-opened).
import type { AdminOutput, NoticeTone } from '../../../src/admin/types.js';
import { DISCORD_MAX_CHARS, hardSplit } from '../format.js';

const MARKS: Record<NoticeTone, string> = { ok: '\u2705', info: '\u2139\ufe0f', error: '\u274c' };
const MAX_CELL = 40;
const FENCE = '```';

function inline(text: string): string {
  return text.replace(/([\\*_~`|])/g, '\\$1');
}

/** A fenced block cannot contain a fence: break any run of three backticks. */
function unfence(text: string): string {
  return text.replace(/```/g, '`\u200b``');
}

function cell(value: string): string {
  const flat = value.replace(/\s+/g, ' ');
  return flat.length <= MAX_CELL ? flat : `${flat.slice(0, MAX_CELL - 1)}\u2026`;
}

interface Rendered {
  /** Text before a code block (a title), kept with its first part. */
  head: string;
  lines: string[];
  fenced: boolean;
}

function renderBlock(block: AdminOutput): Rendered {
  switch (block.kind) {
    case 'notice':
      return { head: '', lines: [`${MARKS[block.tone]} ${block.text}`], fenced: false };
    case 'fields': {
      const lines = block.fields.map(([label, value]) => `**${inline(label)}:** ${inline(value)}`);
      return { head: block.title ? `**${inline(block.title)}**` : '', lines, fenced: false };
    }
    case 'table': {
      const rows = [block.columns, ...block.rows].map((row) => row.map(cell));
      const widths = block.columns.map((_, i) =>
        Math.max(...rows.map((row) => (row[i] ?? '').length)),
      );
      const line = (row: string[]) =>
        unfence(
          widths
            .map((w, i) => (row[i] ?? '').padEnd(w))
            .join('  ')
            .trimEnd(),
        );
      const lines = rows.map(line);
      lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
      if (block.rows.length === 0) lines.push('(none)');
      return { head: block.title ? `**${inline(block.title)}**` : '', lines, fenced: true };
    }
    case 'text':
      return { head: '', lines: unfence(block.text.trimEnd()).split('\n'), fenced: true };
    case 'file':
      // The file itself goes along as an attachment (interactions.ts).
      return { head: '', lines: [`\u{1f4ce} ${inline(block.name)}`], fenced: false };
  }
}

/** Pieces of one block, each within max, re-opening the code block where it was cut. */
function pieces(rendered: Rendered, max: number): string[] {
  const wrap = (lines: string[]) =>
    rendered.fenced ? `${FENCE}\n${lines.join('\n')}\n${FENCE}` : lines.join('\n');
  const overhead = rendered.fenced ? FENCE.length * 2 + 2 : 0;
  const out: string[] = [];
  let current: string[] = [];
  let head = rendered.head;
  const flush = () => {
    if (current.length === 0) return;
    out.push(head ? `${head}\n${wrap(current)}` : wrap(current));
    head = '';
    current = [];
  };
  for (const raw of rendered.lines) {
    // One line longer than a message on its own is cut (a huge value in a field).
    for (const line of hardSplit(raw, max - overhead - 1 - rendered.head.length)) {
      const size = (head ? head.length + 1 : 0) + overhead + [...current, line].join('\n').length;
      if (size > max) flush();
      current.push(line);
    }
  }
  flush();
  if (out.length === 0 && head) out.push(head);
  return out;
}

/** The messages an admin answer takes, in order, each within Discord's limit. */
export function renderAdminOutput(
  blocks: readonly AdminOutput[],
  max = DISCORD_MAX_CHARS,
): string[] {
  const messages: string[] = [];
  for (const block of blocks) {
    for (const piece of pieces(renderBlock(block), max)) {
      const last = messages[messages.length - 1];
      if (last !== undefined && last.length + 2 + piece.length <= max) {
        messages[messages.length - 1] = `${last}\n\n${piece}`;
      } else {
        messages.push(piece);
      }
    }
  }
  return messages.length > 0 ? messages : ['\u2705 Done.'];
}
