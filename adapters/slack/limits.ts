// Slack's documented sizes, as data: what Block Kit and the chat methods accept. Every length is
// measured on the text as sent, i.e. after escaping (escape.ts makes text longer).

export const BLOCK_KIT = {
  /** Text of a section block (mrkdwn or plain_text). */
  sectionText: 3000,
  /** One of a section's fields, and how many fields one section holds. */
  fieldText: 2000,
  fieldsPerSection: 10,
  /** Blocks in one message. */
  blocksPerMessage: 50,
  /** Elements of a context block. */
  contextElements: 10,
  /** All markdown blocks of one payload together. */
  markdownTotal: 12_000,
} as const;

export const CHAT = {
  /** markdown_text of chat.postMessage, chat.update and chat.*Stream. */
  markdownText: 12_000,
  /** The top-level `text` (Slack truncates past 40,000; we stay well inside). */
  text: 40_000,
  /** What the bridge puts in `text` beside blocks: a notification line, not the whole answer. */
  fallbackText: 3000,
} as const;
