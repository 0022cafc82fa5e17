// Hostile files built by the tests, small on disk: .docx files whose document.xml inflates to
// ~100 MB (one honest about it, one whose zip declares a tiny size), PDFs whose content stream
// inflates to hundreds of MB (of text, or of blanks that take pdfjs seconds to read and yield
// nothing), and HTML and JSON that expand to far more text than they weigh.
import { constants, crc32, deflateRawSync } from 'node:zlib';
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
  /** CRC-32 of the inflated text, a zip member's; computed on demand (a PDF's stream needs none). */
  crc: () => number;
  size: number;
}

/** Adler-32 (zlib's trailer) of `data`, continuing from `adler`. */
function adler32(data: Buffer, adler = 1): number {
  let a = adler & 0xffff;
  let b = adler >>> 16;
  for (let i = 0; i < data.length;) {
    // 3800 bytes at most between reductions keeps the sums inside 32 bits.
    const end = Math.min(i + 3800, data.length);
    for (; i < end; i++) b += a += data[i]!;
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** The Adler-32 of data1 + data2 from theirs (zlib's adler32_combine). */
function adler32Combine(adler1: number, adler2: number, length2: number): number {
  const BASE = 65521;
  const rem = length2 % BASE;
  let sum1 = adler1 & 0xffff;
  let sum2 = (rem * sum1) % BASE;
  sum1 += (adler2 & 0xffff) + BASE - 1;
  sum2 += (adler1 >>> 16) + (adler2 >>> 16) + BASE - rem;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum2 >= BASE << 1) sum2 -= BASE << 1;
  if (sum2 >= BASE) sum2 -= BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}

/**
 * open + unit repeated to about `total` bytes + close, deflated. A full flush after each part
 * resets the compressor, so every 1 MB block of units deflates to the same bytes: one is
 * compressed and its output repeated, which makes a 500 MB bomb in milliseconds instead of
 * seconds of zlib. The zlib wrapper's Adler-32 and the zip's CRC-32 cover the whole inflated
 * text, as a real encoder's would (the CRC only when asked: over 500 MB it takes a third of
 * a second).
 */
async function deflateRepeated(
  open: string,
  unit: string,
  close: string,
  total: number,
  format: 'raw' | 'zlib',
): Promise<Deflated> {
  const raw = (part: Buffer, last: boolean) =>
    deflateRawSync(part, {
      level: 9,
      finishFlush: last ? constants.Z_FINISH : constants.Z_FULL_FLUSH,
    });
  const block = Buffer.from(unit.repeat(Math.max(1, Math.floor(MB / unit.length))));
  const head = Buffer.from(open);
  const tail = Buffer.from(close);
  const blocks = Math.max(1, Math.ceil((total - head.length) / block.length));
  const size = head.length + blocks * block.length + tail.length;
  const deflatedBlock = raw(block, false);
  const body = [raw(head, false), ...Array<Buffer>(blocks).fill(deflatedBlock), raw(tail, true)];
  const crc = () => {
    let sum = crc32(head);
    for (let i = 0; i < blocks; i++) sum = crc32(block, sum);
    return crc32(tail, sum);
  };
  if (format === 'raw') return { data: Buffer.concat(body), crc, size };
  const blockAdler = adler32(block);
  let adler = adler32(head);
  for (let i = 0; i < blocks; i++) adler = adler32Combine(adler, blockAdler, block.length);
  adler = adler32Combine(adler, adler32(tail), tail.length);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler);
  // 0x78 0xda: a zlib stream, 32 kB window, maximum compression.
  return { data: Buffer.concat([Buffer.from([0x78, 0xda]), ...body, trailer]), crc, size };
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
      crc: xml.crc(),
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
 * over `width` characters out of one wide cell and `rows` rows of two tiny ones (50 × 53 500:
 * 55 kB of HTML, 2.7 MB of text).
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
