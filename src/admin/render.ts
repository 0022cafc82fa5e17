// Plain-text rendering of admin output, for the console and the CLI (markdown-ish: aligned
// columns, "Label: value" lines, a mark before notices).
import type { AdminOutput, FieldsBlock, NoticeTone, TableBlock } from './types.js';

const MAX_CELL = 60;
const MARK: Record<NoticeTone, string> = { ok: '✓', info: 'ℹ', error: '✗' };

function cell(value: string): string {
  const flat = value.replace(/\s*\n\s*/g, ' ');
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}

function renderTable(block: TableBlock): string {
  const rows = block.rows.map((row) => block.columns.map((_, i) => cell(row[i] ?? '')));
  const widths = block.columns.map((name, i) =>
    Math.max(name.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (values: string[]): string =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(block.columns), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  if (block.title) out.unshift(`${block.title} (${rows.length})`);
  return out.join('\n');
}

function renderFields(block: FieldsBlock): string {
  const width = Math.max(0, ...block.fields.map(([label]) => label.length + 1));
  const out = block.fields.map(([label, value]) => {
    const indent = ' '.repeat(width + 2);
    return `${`${label}:`.padEnd(width)}  ${value.split('\n').join(`\n${indent}`)}`;
  });
  if (block.title) out.unshift(block.title);
  return out.join('\n');
}

export function renderBlock(block: AdminOutput): string {
  switch (block.kind) {
    case 'table':
      return renderTable(block);
    case 'fields':
      return renderFields(block);
    case 'notice':
      return `${MARK[block.tone]} ${block.text}`;
    case 'text':
      return block.text;
    case 'file':
      return `📎 ${block.name} (${block.bytes.length.toLocaleString('en-US')} bytes)`;
  }
}

/** All blocks, separated by blank lines. */
export function renderText(output: readonly AdminOutput[]): string {
  return output.map(renderBlock).join('\n\n');
}

/** Whether the answer reports a failure (for a CLI's exit code). */
export function hasError(output: readonly AdminOutput[]): boolean {
  return output.some((block) => block.kind === 'notice' && block.tone === 'error');
}
