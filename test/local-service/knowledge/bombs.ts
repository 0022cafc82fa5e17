// Hostile files built by the tests, small on disk: .docx files whose document.xml inflates to
// ~100 MB (one honest about it, one whose zip declares a tiny size), PDFs whose content stream
// inflates to hundreds of MB (of text, or of blanks that take pdfjs seconds to read and yield
// nothing), and HTML and JSON that expand to far more text than they weigh.
import { crc32, createDeflate, createDeflateRaw } from 'node:zlib';
import {
  DOCUMENT_XML_CLOSE,
  DOCUMENT_XML_OPEN,
  DOCX_PACKAGE,
  pdfWithContent,
  storedMember,
  zipOf,
} from './fixtures.js';

const MB = 1024 * 1024;

interface Deflated {
  data: Buffer;
  crc: number;
  size: number;
}

/** open + unit repeated to about `total` bytes + close, deflated as it is produced. */
async function deflateRepeated(
  open: string,
  unit: string,
  close: string,
  total: number,
  format: 'raw' | 'zlib',
): Promise<Deflated> {
  const deflate = format === 'raw' ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  // A block of many units per write keeps the number of writes (and the time) small.
  const block = Buffer.from(unit.repeat(Math.max(1, Math.floor(MB / unit.length))));
  let crc = 0;
  let size = 0;
  const write = async (chunk: Buffer) => {
    crc = crc32(chunk, crc);
    size += chunk.length;
    if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
  };
  await write(Buffer.from(open));
  while (size < total) await write(block);
  await write(Buffer.from(close));
  deflate.end();
  await ended;
  return { data: Buffer.concat(parts), crc, size };
}

const PARAGRAPH = '<w:p><w:r><w:t>Paragraph.</w:t></w:r></w:p>';

/**
 * A .docx whose word/document.xml inflates to `inflatedMb` MB of paragraphs (~100 MB is about
 * 2.4 million of them); with `lie`, its zip declares that part to be 1 kB.
 */
export async function docxBomb(inflatedMb: number, lie = false): Promise<Uint8Array> {
  const xml = await deflateRepeated(
    DOCUMENT_XML_OPEN,
    PARAGRAPH,
    DOCUMENT_XML_CLOSE,
    inflatedMb * MB,
    'raw',
  );
  return zipOf([
    ...Object.entries(DOCX_PACKAGE).map(([name, text]) => storedMember(name, text)),
    {
      name: 'word/document.xml',
      data: xml.data,
      method: 8,
      crc: xml.crc,
      declaredSize: lie ? 1024 : xml.size,
    },
  ]);
}

/**
 * A one-page PDF whose content stream inflates to `inflatedMb` MB: of text ("text") or of
 * spaces, which take pdfjs long to read and yield no text at all ("blank").
 */
export async function pdfBomb(inflatedMb: number, fill: 'text' | 'blank'): Promise<Uint8Array> {
  const content =
    fill === 'text'
      ? await deflateRepeated(
          'BT /F1 12 Tf 72 720 Td ',
          '(All work and no play makes a dull file.) Tj T* ',
          'ET',
          inflatedMb * MB,
          'zlib',
        )
      : await deflateRepeated('', ' ', '', inflatedMb * MB, 'zlib');
  return pdfWithContent(content.data, true);
}

/**
 * HTML whose table pads every cell to its column's widest: html-to-text makes `rows` lines of
 * over `width` characters out of one wide cell and `rows` rows of two tiny ones (2000 × 5000:
 * 60 kB of HTML, 10 MB of text).
 */
export function htmlTableBomb(rows: number, width: number): Uint8Array {
  const wide = `<tr><td>${'w'.repeat(width)}</td><td>w</td></tr>`;
  const html = `<table>${wide}${'<tr><td>x</td><td>y</td></tr>'.repeat(rows)}</table>`;
  return new TextEncoder().encode(html);
}

/** JSON nested `depth` deep: each level indents its line two spaces more when turned to text. */
export function jsonNestingBomb(depth: number): Uint8Array {
  const json = `${'{"k":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return new TextEncoder().encode(json);
}
