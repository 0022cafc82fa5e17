// Feedback rows as files: CSV (RFC 4180 through csv-stringify: CRLF line ends, fields quoted
// when they hold a comma, quote or line break, quotes doubled) and JSON Lines. Spreadsheets run
// a cell that starts with = + - @ (or a tab or carriage return) as a formula, so such a CSV cell
// is prefixed with ' (csv-stringify's escape_formulas).
import { stringify } from 'csv-stringify/sync';
import type { FeedbackRecord } from '../state/types.js';

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The columns of both formats, in order: the row's fields under stable snake_case names. */
const EXPORT_COLUMNS = [
  'id',
  'vote',
  'reason',
  'question',
  'answer_excerpt',
  'chatbot_uuid',
  'session_uuid',
  'message_uuid',
  'platform',
  'workspace',
  'channel',
  'thread',
  'user_id',
  'answered_at',
  'created_at',
  'updated_at',
] as const;

type Column = (typeof EXPORT_COLUMNS)[number];

function columns(row: FeedbackRecord): Record<Column, string> {
  return {
    id: row.id,
    vote: row.vote,
    reason: row.reason ?? '',
    question: row.question,
    answer_excerpt: row.answerExcerpt,
    chatbot_uuid: row.chatbotUuid,
    session_uuid: row.sessionUuid,
    message_uuid: row.messageUuid,
    platform: row.platform,
    workspace: row.workspace,
    channel: row.channel,
    thread: row.thread,
    user_id: row.userId,
    answered_at: row.answeredAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

const CSV_OPTIONS = {
  record_delimiter: 'windows',
  escape_formulas: true,
  // A lone line break is quoted too (csv-stringify quotes only its record delimiter by itself).
  quoted_match: /[\r\n]/,
} as const;

/** One CSV field: defused against formulas, then quoted when RFC 4180 needs it. */
export function csvField(value: string): string {
  return stringify([[value]], CSV_OPTIONS).replace(/\r\n$/, '');
}

export function toCsv(rows: readonly FeedbackRecord[]): string {
  const values = rows.map((row) => {
    const fields = columns(row);
    return EXPORT_COLUMNS.map((name) => fields[name]);
  });
  return stringify([[...EXPORT_COLUMNS], ...values], CSV_OPTIONS);
}

function toJsonl(rows: readonly FeedbackRecord[]): string {
  return rows.map((row) => `${JSON.stringify(columns(row))}\n`).join('');
}

export function exportFile(
  rows: readonly FeedbackRecord[],
  format: ExportFormat,
  at: Date,
): { name: string; contentType: string; bytes: Uint8Array } {
  const stamp = at.toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  const text = format === 'csv' ? toCsv(rows) : toJsonl(rows);
  return {
    name: `chatbridge-feedback-${stamp}.${format}`,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
    bytes: new TextEncoder().encode(text),
  };
}
