// Hand-built files for extraction tests: a minimal valid PDF and a minimal .docx (a stored,
// uncompressed zip), and the pieces the hostile files in bombs.ts are built from, so the tests
// need no binary fixtures.
import { crc32 } from 'node:zlib';

/** A one-page PDF showing each line with Helvetica; byte offsets in the xref are exact. */
export function buildPdf(lines: string[]): Uint8Array {
  const escape = (line: string) => line.replace(/[()\\]/g, '\\$&');
  const text = lines
    .map((line, i) => `${i === 0 ? '' : '0 -16 Td '}(${escape(line)}) Tj`)
    .join(' ');
  return pdfWithContent(Buffer.from(`BT /F1 12 Tf 72 720 Td ${text} ET`));
}

/** A one-page PDF whose page content is this stream (zlib-compressed when flate is set). */
export function pdfWithContent(content: Uint8Array, flate = false): Uint8Array {
  const filter = flate ? ' /Filter /FlateDecode' : '';
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    Buffer.concat([
      Buffer.from(`<< /Length ${content.length}${filter} >>\nstream\n`),
      content,
      Buffer.from('\nendstream'),
    ]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const object = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`),
      Buffer.from(body),
      Buffer.from('\nendobj\n'),
    ]);
    parts.push(object);
    length += object.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  tail += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
}

/** One member of a zip as written: its data (stored or raw-deflated) and what it declares. */
export interface ZipMember {
  name: string;
  data: Uint8Array;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  crc: number;
  /** The uncompressed size written in the local header and the central directory. */
  declaredSize: number;
}

/** A zip archive of the members exactly as given (sizes and CRCs are not checked here). */
export function zipOf(members: ZipMember[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const fileName = Buffer.from(member.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(member.method, 8);
    local.writeUInt32LE(member.crc, 14);
    local.writeUInt32LE(member.data.length, 18);
    local.writeUInt32LE(member.declaredSize, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(member.method, 10);
    central.writeUInt32LE(member.crc, 16);
    central.writeUInt32LE(member.data.length, 20);
    central.writeUInt32LE(member.declaredSize, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, Buffer.from(member.data));
    centrals.push(central, fileName);
    offset += local.length + fileName.length + member.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A stored (uncompressed) zip member. */
export function storedMember(name: string, text: string): ZipMember {
  const data = Buffer.from(text);
  return { name, data, method: 0, crc: crc32(data), declaredSize: data.length };
}

/** A zip archive with every file stored (no compression). */
export function buildZip(files: Record<string, string>): Uint8Array {
  return zipOf(Object.entries(files).map(([name, text]) => storedMember(name, text)));
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** The parts of a Word document besides word/document.xml. */
export const DOCX_PACKAGE: Record<string, string> = {
  '[Content_Types].xml':
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  '_rels/.rels':
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
};

/** What word/document.xml holds before and after its paragraphs. */
export const DOCUMENT_XML_OPEN = `<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body>`;
export const DOCUMENT_XML_CLOSE = '</w:body></w:document>';

/** A minimal Word document with one paragraph per entry. */
export function buildDocx(paragraphs: string[]): Uint8Array {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`).join('');
  const xml = `${DOCUMENT_XML_OPEN}${body}${DOCUMENT_XML_CLOSE}`;
  return buildZip({ ...DOCX_PACKAGE, 'word/document.xml': xml });
}
