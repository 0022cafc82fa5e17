// Admin command output as Slack blocks: notices with a mark, fields as section fields, tables and
// help text monospaced. Slack caps sections at 3,000 characters, fields at 10 per section and a
// message at 50 blocks (limits.ts), measured on the text as sent, after escaping; longer output
// is split, and cut with a note past the block limit.
import { renderBlock, renderText } from '../../src/admin/index.js';
import type { AdminOutput, FieldsBlock, NoticeTone } from '../../src/admin/index.js';
import { escapeMrkdwn, fitEscaped } from './escape.js';
import type { SlackBlock } from './format.js';
import { BLOCK_KIT, CHAT } from './limits.js';

const SECTION_LIMIT = BLOCK_KIT.sectionText;
const FIELD_LIMIT = BLOCK_KIT.fieldText;
const MAX_BLOCKS = BLOCK_KIT.blocksPerMessage;
const FENCE = '```';
const MARK: Record<NoticeTone, string> = {
  ok: ':white_check_mark:',
  info: ':information_source:',
  error: ':x:',
};

const section = (text: string): SlackBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** Monospaced text in code sections, split on line ends so each escaped section fits. */
function codeSections(text: string, title?: string): SlackBlock[] {
  const head = title ? `*${escapeMrkdwn(title)}*\n` : '';
  const limit = SECTION_LIMIT - 2 * FENCE.length - head.length;
  const chunks: string[] = [];
  let current = '';
  for (const rawLine of text.split('\n')) {
    const line = fitEscaped(escapeMrkdwn(rawLine), limit);
    if (current !== '' && current.length + 1 + line.length > limit) {
      chunks.push(current);
      current = line;
    } else {
      current = current === '' ? line : `${current}\n${line}`;
    }
  }
  chunks.push(current);
  return chunks.map((chunk, i) => section(`${i === 0 ? head : ''}${FENCE}${chunk}${FENCE}`));
}

function fieldSections(block: FieldsBlock): SlackBlock[] {
  const fields = block.fields.map(([label, value]) => {
    const text = `*${escapeMrkdwn(label)}*\n${escapeMrkdwn(value || '—')}`;
    return { type: 'mrkdwn', text: fitEscaped(text, FIELD_LIMIT) };
  });
  const out: SlackBlock[] = [];
  if (block.title) out.push(section(fitEscaped(`*${escapeMrkdwn(block.title)}*`, SECTION_LIMIT)));
  for (let i = 0; i < fields.length; i += BLOCK_KIT.fieldsPerSection) {
    out.push({ type: 'section', fields: fields.slice(i, i + BLOCK_KIT.fieldsPerSection) });
  }
  return out;
}

export function adminBlocks(output: readonly AdminOutput[]): SlackBlock[] {
  const blocks: SlackBlock[] = [];
  for (const block of output) {
    switch (block.kind) {
      case 'notice':
        blocks.push(
          section(fitEscaped(`${MARK[block.tone]} ${escapeMrkdwn(block.text)}`, SECTION_LIMIT)),
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

/** Notification text of an admin answer: mrkdwn too, so names and values are escaped. */
export function adminFallbackText(output: readonly AdminOutput[]): string {
  return fitEscaped(escapeMrkdwn(renderText(output) || 'Done.'), CHAT.fallbackText);
}
