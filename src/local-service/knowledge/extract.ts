// Text extraction from an uploaded (or fetched) file, chosen by the file name's extension,
// with the content type as a hint when the name has none.
import { UnsupportedFileTypeError } from './types.js';
import { htmlToText } from './html.js';
import { pdfToText } from './pdf.js';
import { csvToText, jsonToText } from './structured.js';

export const ACCEPTED_EXTENSIONS = [
  '.txt',
  '.md',
  '.csv',
  '.json',
  '.html',
  '.htm',
  '.pdf',
  '.docx',
] as const;

export type FileKind = 'text' | 'markdown' | 'csv' | 'json' | 'html' | 'pdf' | 'docx';

const BY_EXTENSION: Record<string, FileKind> = {
  '.txt': 'text',
  '.md': 'markdown',
  '.csv': 'csv',
  '.json': 'json',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
};

const BY_CONTENT_TYPE: Record<string, FileKind> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/csv': 'csv',
  'application/json': 'json',
  'text/json': 'json',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

export interface ExtractInput {
  bytes: Uint8Array;
  fileName: string;
  contentType?: string;
}

export interface ExtractedText {
  text: string;
  title?: string;
}

/** The kind of a file: by extension, else by content type; undefined when neither is known. */
export function fileKind(fileName: string, contentType?: string): FileKind | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot > 0 || (dot === 0 && fileName.length > 1)) {
    const byName = BY_EXTENSION[fileName.slice(dot).toLowerCase()];
    if (byName !== undefined) return byName;
    if (dot > fileName.lastIndexOf('/')) return undefined; // an extension we do not read
  }
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return BY_CONTENT_TYPE[type] ?? (type.endsWith('+json') ? 'json' : undefined);
}

/** UTF-8 text of the bytes, BOM stripped; invalid sequences become U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
}

async function docxToText(bytes: Uint8Array): Promise<ExtractedText> {
  const mammoth = (await import('mammoth')).default;
  try {
    const result = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
    return { text: result.value.replace(/\n{3,}/g, '\n\n').trim() };
  } catch (error) {
    throw new Error(`not a readable .docx file: ${(error as Error).message}`);
  }
}

async function extractKind(kind: FileKind, bytes: Uint8Array): Promise<ExtractedText> {
  switch (kind) {
    case 'text':
    case 'markdown':
      return { text: decodeUtf8(bytes).replace(/\r\n?/g, '\n').trim() };
    case 'csv':
      return { text: csvToText(decodeUtf8(bytes)) };
    case 'json':
      return { text: jsonToText(decodeUtf8(bytes)) };
    case 'html':
      return htmlToText(decodeUtf8(bytes));
    case 'pdf':
      return pdfToText(bytes);
    case 'docx':
      return docxToText(bytes);
  }
}

/**
 * The text of a file. Throws UnsupportedFileTypeError for a type it does not read, and a
 * plain Error (naming the file) when the file is malformed or holds no text.
 */
export async function extractText(input: ExtractInput): Promise<ExtractedText> {
  const kind = fileKind(input.fileName, input.contentType);
  if (kind === undefined) throw new UnsupportedFileTypeError(input.fileName, ACCEPTED_EXTENSIONS);
  let extracted: ExtractedText;
  try {
    extracted = await extractKind(kind, input.bytes);
  } catch (error) {
    throw new Error(`"${input.fileName}": ${(error as Error).message}`, { cause: error });
  }
  if (extracted.text.trim() === '') {
    throw new Error(`"${input.fileName}": no text could be extracted from this ${kind} file`);
  }
  return extracted;
}
