// Text extraction from an uploaded (or fetched) file, chosen by the file name's extension,
// with the content type as a hint when the name has none. Every file's text is capped
// (textLimitFor); the converters that can blow up (PDF, .docx, HTML, CSV, JSON) run wherever
// the caller says: the service runs them in child processes with a time and memory limit.
import { ExtractionLimitError, UnsupportedFileTypeError } from './errors.js';
import { docxToText } from './docx.js';
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

/** Text taken from one file at most: 20 times its size (a bomb expands far more), ≥ 1 MiB. */
export function textLimitFor(fileBytes: number, maxTextBytes: number): number {
  return Math.min(maxTextBytes, Math.max(20 * fileBytes, 1024 * 1024));
}

export const DEFAULT_MAX_TEXT_BYTES = 10 * 1024 * 1024;

async function convertKind(
  kind: FileKind,
  bytes: Uint8Array,
  maxTextBytes: number,
): Promise<ExtractedText> {
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
      return pdfToText(bytes, maxTextBytes);
    case 'docx':
      return docxToText(bytes, maxTextBytes);
  }
}

/**
 * Converts a file of a known kind in this thread. Throws ExtractionLimitError once the text
 * passes maxTextBytes (PDF and .docx stop early; the other converters are checked after).
 */
export async function convertFile(
  kind: FileKind,
  bytes: Uint8Array,
  maxTextBytes: number,
): Promise<ExtractedText> {
  const extracted = await convertKind(kind, bytes, maxTextBytes);
  if (Buffer.byteLength(extracted.text) > maxTextBytes) {
    throw ExtractionLimitError.textTooLong(maxTextBytes);
  }
  return extracted;
}

export type Converter = typeof convertFile;

/**
 * Loads the reader a kind needs, if it is a large one (pdfjs, mammoth): a converter process
 * does so before a file's clock starts, and only for the kinds it is sent (most never read a
 * PDF, and pdfjs is most of a process's start).
 */
export async function loadConverterFor(kind: FileKind | 'prepare'): Promise<void> {
  if (kind === 'pdf') {
    await import('pdfjs-dist/legacy/build/pdf.mjs');
    // In Node pdfjs parses in a "fake worker" whose code it imports on the first document (half
    // a second). The worker module, once loaded, sets globalThis.pdfjsWorker, where pdfjs looks
    // first: loaded here with the reader, it is not counted against the first file's limit.
    await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
  } else if (kind === 'docx') await import('mammoth');
}

export interface ExtractOptions {
  /** Most text taken from any one file (see textLimitFor). Default 10 MiB. */
  maxTextBytes?: number;
  /**
   * Runs the conversion of the kinds that can expand (all but plain text and markdown):
   * default convertFile in this thread; the service passes its converter processes (extract-pool.ts).
   */
  convert?: Converter;
}

/**
 * The text of a file. Throws UnsupportedFileTypeError for a type it does not read,
 * ExtractionLimitError (naming the file) when it would break a limit, and a plain Error
 * (naming the file) when the file is malformed or holds no text.
 */
export async function extractText(
  input: ExtractInput,
  options: ExtractOptions = {},
): Promise<ExtractedText> {
  const kind = fileKind(input.fileName, input.contentType);
  if (kind === undefined) throw new UnsupportedFileTypeError(input.fileName, ACCEPTED_EXTENSIONS);
  const maxTextBytes = textLimitFor(
    input.bytes.byteLength,
    options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES,
  );
  const plain = kind === 'text' || kind === 'markdown';
  const convert = plain ? convertFile : (options.convert ?? convertFile);
  let extracted: ExtractedText;
  try {
    extracted = await convert(kind, input.bytes, maxTextBytes);
  } catch (error) {
    const message = `"${input.fileName}": ${(error as Error).message}`;
    if (error instanceof ExtractionLimitError) throw new ExtractionLimitError(message);
    throw new Error(message, { cause: error });
  }
  if (extracted.text.trim() === '') {
    throw new Error(`"${input.fileName}": no text could be extracted from this ${kind} file`);
  }
  return extracted;
}
