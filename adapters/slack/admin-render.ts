// Admin command output as Slack blocks: notices with a mark, fields as section fields, tables and
// help text monospaced. Slack caps sections at 3,000 characters, fields at 10 per section and a
// message at 50 blocks; longer output is split, and cut with a note past the block limit.
import { renderBlock, renderText } from '../../src/admin/index.js';
import type { AdminOutput, FieldsBlock, NoticeTone } from '../../src/admin/index.js';
import { escapeMrkdwn, type SlackBlock } from './format.js';

const SECTION_LIMIT = 3000;
const FIELD_LIMIT = 2000;
const MAX_BLOCKS = 50;
const MARK: Record<NoticeTone, string> = {
  ok: ':white_check_mark:',
  info: ':information_source:',
  error: ':x:',
};

const section = (text: string): SlackBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** Monospaced text in code sections, split on line ends to fit the section limit. */
function codeSections(text: string, title?: string): SlackBlock[] {
  const limit = SECTION_LIMIT - 8 - (title ? title.length + 4 : 0);
  const chunks: string[] = [];
  let current = '';
  for (const rawLine of text.split('\n')) {
    const line = rawLine.length > limit ? `${rawLine.slice(0, limit - 1)}…` : rawLine;
    if (current !== '' && current.length + 1 + line.length > limit) {
      chunks.push(current);
      current = line;
    } else {
      current = current === '' ? line : `${current}\n${line}`;
    }
  }
  chunks.push(current);
  return chunks.map((chunk, i) =>
    section(
      `${i === 0 && title ? `*${escapeMrkdwn(title)}*\n` : ''}\`\`\`${escapeMrkdwn(chunk)}\`\`\``,
    ),
  );
}

function fieldSections(block: FieldsBlock): SlackBlock[] {
  const fields = block.fields.map(([label, value]) => {
    const text = `*${escapeMrkdwn(label)}*\n${escapeMrkdwn(value || '—')}`;
    return {
      type: 'mrkdwn',
      text: text.length > FIELD_LIMIT ? `${text.slice(0, FIELD_LIMIT - 1)}…` : text,
    };
  });
  const out: SlackBlock[] = [];
  if (block.title) out.push(section(`*${escapeMrkdwn(block.title)}*`));
  for (let i = 0; i < fields.length; i += 10) {
    out.push({ type: 'section', fields: fields.slice(i, i + 10) });
  }
  return out;
}

export function adminBlocks(output: readonly AdminOutput[]): SlackBlock[] {
  const blocks: SlackBlock[] = [];
  for (const block of output) {
    switch (block.kind) {
      case 'notice':
        blocks.push(
          section(`${MARK[block.tone]} ${escapeMrkdwn(block.text)}`.slice(0, SECTION_LIMIT)),
        );
        break;
      case 'fields':
        blocks.push(...fieldSections(block));
        break;
      case 'table':
        blocks.push(...codeSections(renderBlock({ ...block, title: undefined }), block.title));
        break;
      case 'text':
        blocks.push(...codeSections(block.text));
        break;
    }
  }
  if (blocks.length <= MAX_BLOCKS) return blocks;
  return [
    ...blocks.slice(0, MAX_BLOCKS - 1),
    section(`_…and ${blocks.length - MAX_BLOCKS + 1} more blocks, cut to fit one Slack message._`),
  ];
}

/** Notification text of an admin answer. */
export function adminFallbackText(output: readonly AdminOutput[]): string {
  const text = renderText(output);
  return text.length > 3000 ? `${text.slice(0, 2999)}…` : text || 'Done.';
}
