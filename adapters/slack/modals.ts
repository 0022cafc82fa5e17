// The two admin modals: a file upload (file_input) and a question-and-answer source with
// multi-line inputs. private_metadata carries where the command was typed.
import type { SlackBlock } from './format.js';

export const UPLOAD_CALLBACK = 'chatbridge_source_upload';
export const QA_CALLBACK = 'chatbridge_source_qa';

export interface ModalOrigin {
  workspace: string;
  channel: string;
}

export const plain = (text: string) => ({ type: 'plain_text', text });

export function input(
  blockId: string,
  label: string,
  element: SlackBlock,
  optional = false,
): SlackBlock {
  return { type: 'input', block_id: blockId, label: plain(label), element, optional };
}

export function uploadModal(origin: ModalOrigin, maxBytes: number): SlackBlock {
  const mb = Math.floor(maxBytes / 1024 / 1024);
  return {
    type: 'modal',
    callback_id: UPLOAD_CALLBACK,
    private_metadata: JSON.stringify(origin),
    title: plain('Upload a data source'),
    submit: plain('Upload'),
    close: plain('Cancel'),
    blocks: [
      input('file', 'File', { type: 'file_input', action_id: 'file', max_files: 1 }),
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: `PDF, Word, text, Markdown, CSV, Excel… up to ${mb} MB.` },
        ],
      },
      input('title', 'Title', { type: 'plain_text_input', action_id: 'title' }, true),
    ],
  };
}

export function qaModal(origin: ModalOrigin): SlackBlock {
  return {
    type: 'modal',
    callback_id: QA_CALLBACK,
    private_metadata: JSON.stringify(origin),
    title: plain('Add a Q&A source'),
    submit: plain('Add'),
    close: plain('Cancel'),
    blocks: [
      input('question', 'Question', {
        type: 'plain_text_input',
        action_id: 'question',
        multiline: true,
        max_length: 3000,
      }),
      input('answer', 'Answer', {
        type: 'plain_text_input',
        action_id: 'answer',
        multiline: true,
        max_length: 3000,
      }),
    ],
  };
}

export function parseOrigin(metadata: string | undefined): ModalOrigin | undefined {
  try {
    const parsed = JSON.parse(metadata ?? '') as Partial<ModalOrigin>;
    if (typeof parsed.workspace === 'string' && typeof parsed.channel === 'string') {
      return { workspace: parsed.workspace, channel: parsed.channel };
    }
  } catch {
    // fall through
  }
  return undefined;
}

/** The shape of view.state.values Slack sends on submit. */
export type ViewValues = Record<string, Record<string, ViewValue>>;

export interface SlackFileObject {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  permalink?: string;
}

export interface ViewValue {
  type?: string;
  value?: string | null;
  files?: SlackFileObject[];
}

export function textValue(values: ViewValues, block: string): string | undefined {
  const value = values[block]?.[block]?.value;
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
