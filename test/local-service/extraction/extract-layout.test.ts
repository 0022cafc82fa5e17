// What a PDF or a Word file marks only by its layout: code set in a fixed-width font (no other
// sign of it survives), list items behind a bullet glyph, and a line broken after a word's
// hyphen. Files are generated here with pdfkit and docx, as users' tools write them.
import { Document, Packer, Paragraph, TextRun } from 'docx';
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { docxToText } from '../../../src/local-service/extraction/docx.js';
import { pdfToText } from '../../../src/local-service/extraction/pdf.js';

async function pdf(write: (doc: PDFKit.PDFDocument) => void): Promise<Uint8Array> {
  const doc = new PDFDocument({ size: 'A4', margin: 56 });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => doc.on('end', resolve));
  write(doc);
  doc.end();
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}

const CODE = 'function f(x) {\n  if (x) {\n    return 1;\n  }\n}';

describe('PDF layout', () => {
  it('reads lines in a fixed-width font as a code block, indented as they stand', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica').fontSize(11).text('Call it like this:').moveDown(0.6);
      doc.font('Courier').fontSize(9).text(CODE).moveDown(0.6);
      doc.font('Helvetica').fontSize(11).text('It returns one.');
    });
    const { text } = await pdfToText(bytes);
    expect(text).toBe(`Call it like this:\n\n\`\`\`\n${CODE}\n\`\`\`\n\nIt returns one.`);
  });

  it('reads a code block broken by a page break as one block, and a page end as a paragraph end', async () => {
    const [head, ...rest] = CODE.split('\n');
    const bytes = await pdf((doc) => {
      doc.font('Helvetica').fontSize(11).text('Call it like this:').moveDown(0.6);
      doc.font('Courier').fontSize(9).text(head!);
      doc.addPage();
      doc.font('Courier').fontSize(9).text(rest.join('\n')).moveDown(0.6);
      doc.font('Helvetica').fontSize(11).text('It returns one');
      doc.addPage();
      doc.font('Helvetica').fontSize(11).text('whatever the input.');
    });
    const { text } = await pdfToText(bytes);
    expect(text).toBe(
      `Call it like this:\n\n\`\`\`\n${CODE}\n\`\`\`\n\nIt returns one\n\nwhatever the input.`,
    );
  });

  it('reads a bullet glyph as a list item and a line broken after a hyphen as one word', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Helvetica').fontSize(11);
      doc.text('You can also return values from user-');
      doc.text('defined functions.').moveDown(0.6);
      doc.text('•  Headings.').text('•  Lists.');
    });
    const { text } = await pdfToText(bytes);
    expect(text).toBe(
      'You can also return values from user-defined functions.\n\n- Headings.\n- Lists.',
    );
  });
});

describe('Word layout', () => {
  it('reads paragraphs whose runs are all in a fixed-width font as a code block', async () => {
    const code = (line: string) =>
      new Paragraph({ children: [new TextRun({ text: line, font: 'Courier New' })] });
    const doc = new Document({
      sections: [
        {
          children: [
            new Paragraph('Call it like this:'),
            ...CODE.split('\n').map(code),
            new Paragraph({
              children: [new TextRun('Mixed '), new TextRun({ text: 'f(x)', font: 'Consolas' })],
            }),
          ],
        },
      ],
    });
    const { text } = await docxToText(new Uint8Array(await Packer.toBuffer(doc)), 1_000_000);
    expect(text).toBe(`Call it like this:\n\n\`\`\`\n${CODE}\n\`\`\`\n\nMixed f(x)`);
  });
});
