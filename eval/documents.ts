// The files of set B as a user would upload them. Markdown, HTML and plain text are uploaded as
// they are; "<name>.pdf.md" and "<name>.docx.md" are markdown sources turned into a PDF or a
// Word file here, at eval time (pdfkit, docx), with headings as headings (and a PDF outline),
// lists as lists, code in a fixed-width font. Each document also has its plain text: what a
// reader of the file sees, the text its key facts are checked against and the floor searches.
import {
  Document,
  HeadingLevel,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
} from 'docx';
import { decodeHTML } from 'entities';
import { convert } from 'html-to-text';
import { marked, type Token, type Tokens } from 'marked';
import PDFDocument from 'pdfkit';

export type Format = 'markdown' | 'html' | 'text' | 'pdf' | 'docx';

export interface Upload {
  /** The uploaded file's path under its corpus folder, e.g. "luxon/zones.pdf". */
  path: string;
  format: Format;
  bytes: Uint8Array;
  contentType: string;
  /** The text a reader of the file sees. */
  text: string;
}

/** A block of a generated document: what both the PDF and the Word writer lay out. */
export type Block =
  | { type: 'heading'; depth: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'item'; text: string }
  | { type: 'code'; text: string }
  | { type: 'row'; cells: string[] };

const stripTags = (html: string) => decodeHTML(html.replace(/<[^>]*>/g, ''));

/** Inline markdown as the words a reader sees: emphasis, code ticks and link targets dropped. */
function inline(tokens: Token[] | undefined, fallback: string): string {
  if (tokens === undefined) return fallback;
  return tokens
    .map((t): string => {
      if (t.type === 'html') return stripTags(t.raw);
      if (t.type === 'br') return '\n';
      if (t.type === 'image') return '';
      if ('tokens' in t && Array.isArray(t.tokens)) return inline(t.tokens, '');
      return 'text' in t && typeof t.text === 'string' ? t.text : '';
    })
    .join('');
}

function blocksOf(tokens: Token[], into: Block[]): Block[] {
  for (const t of tokens) {
    if (t.type === 'heading') {
      const h = t as Tokens.Heading;
      into.push({ type: 'heading', depth: h.depth, text: inline(h.tokens, h.text) });
    } else if (t.type === 'paragraph' || t.type === 'text') {
      const text = inline((t as Tokens.Paragraph).tokens, (t as Tokens.Paragraph).text).trim();
      if (text !== '') into.push({ type: 'paragraph', text });
    } else if (t.type === 'list') {
      for (const item of (t as Tokens.List).items) {
        const inner = blocksOf(item.tokens, []);
        const [head, ...rest] = inner;
        if (head?.type === 'paragraph') into.push({ type: 'item', text: head.text }, ...rest);
        else into.push(...inner);
      }
    } else if (t.type === 'code') {
      into.push({ type: 'code', text: (t as Tokens.Code).text });
    } else if (t.type === 'table') {
      const table = t as Tokens.Table;
      for (const row of [table.header, ...table.rows]) {
        into.push({ type: 'row', cells: row.map((c) => inline(c.tokens, c.text).trim()) });
      }
    } else if (t.type === 'blockquote') {
      blocksOf((t as Tokens.Blockquote).tokens, into);
    } else if (t.type === 'html') {
      // <details><summary>Title</summary> (helmet's header reference) is a section: its
      // summary becomes a heading; other HTML blocks keep their words.
      const summary = /<summary>([\s\S]*?)<\/summary>/.exec(t.raw);
      if (summary) into.push({ type: 'heading', depth: 3, text: stripTags(summary[1]!).trim() });
      else {
        const text = stripTags(t.raw).trim();
        if (text !== '') into.push({ type: 'paragraph', text });
      }
    }
  }
  return into;
}

/**
 * The standard PDF fonts hold only Windows-1252 characters: the few others in the sources are
 * written as their plain equivalents, in the PDF and in its plain text alike.
 */
const PDF_SAFE: Record<string, string> = { '→': '->', '←': '<-', '≥': '>=', '≤': '<=' };
export const pdfSafe = (text: string) =>
  text.replace(/[^\n\x20-\x7e\u00a0-\u00ff‘’“”–—…•€]/g, (c) => PDF_SAFE[c] ?? '?');

export function markdownBlocks(markdown: string, safe: (s: string) => string = (s) => s): Block[] {
  return blocksOf(marked.lexer(markdown), []).map((b) =>
    b.type === 'row' ? { ...b, cells: b.cells.map(safe) } : { ...b, text: safe(b.text) },
  );
}

/** The plain text of blocks: one block a paragraph, table cells separated by " | ". */
export const blocksText = (blocks: Block[]) =>
  blocks.map((b) => (b.type === 'row' ? b.cells.join(' | ') : b.text)).join('\n\n');

export async function pdfOf(blocks: Block[], title: string): Promise<Uint8Array> {
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: title } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => doc.on('end', resolve));
  for (const b of blocks) {
    if (b.type === 'heading') {
      doc.outline.addItem(b.text);
      doc
        .moveDown(0.5)
        .font('Helvetica-Bold')
        .fontSize(b.depth === 1 ? 20 : b.depth === 2 ? 15 : 12);
      doc.text(b.text).moveDown(0.3);
    } else if (b.type === 'code') {
      doc.font('Courier').fontSize(9).text(b.text).moveDown(0.6);
    } else if (b.type === 'item') {
      doc.font('Helvetica').fontSize(11).text(`•  ${b.text}`, { indent: 12 }).moveDown(0.2);
    } else if (b.type === 'row') {
      // A table row as columns side by side, as a PDF table is: no "|" between the cells.
      const left = doc.page.margins.left;
      const width = (doc.page.width - left - doc.page.margins.right) / b.cells.length;
      const top = doc.y;
      let bottom = top;
      doc.font('Helvetica').fontSize(10);
      b.cells.forEach((cell, i) => {
        doc.text(cell, left + i * width, top, { width: width - 8 });
        bottom = Math.max(bottom, doc.y);
      });
      doc.x = left;
      doc.y = bottom;
      doc.moveDown(0.2);
    } else {
      doc.font('Helvetica').fontSize(11).text(b.text).moveDown(0.6);
    }
  }
  doc.end();
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}

const HEADINGS = [
  HeadingLevel.HEADING_1,
  HeadingLevel.HEADING_2,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_4,
];

export async function docxOf(blocks: Block[], title: string): Promise<Uint8Array> {
  const children: Array<Paragraph | Table> = [];
  let rows: TableRow[] = [];
  const flushTable = () => {
    if (rows.length > 0) children.push(new Table({ rows }));
    rows = [];
  };
  for (const b of blocks) {
    if (b.type === 'row') {
      rows.push(
        new TableRow({
          children: b.cells.map((c) => new TableCell({ children: [new Paragraph(c)] })),
        }),
      );
      continue;
    }
    flushTable();
    if (b.type === 'heading') {
      children.push(
        new Paragraph({ text: b.text, heading: HEADINGS[b.depth - 1] ?? HeadingLevel.HEADING_4 }),
      );
    } else if (b.type === 'code') {
      for (const line of b.text.split('\n')) {
        children.push(
          new Paragraph({ children: [new TextRun({ text: line, font: 'Courier New' })] }),
        );
      }
    } else if (b.type === 'item') {
      children.push(new Paragraph({ text: b.text, bullet: { level: 0 } }));
    } else {
      children.push(new Paragraph(b.text));
    }
  }
  flushTable();
  const doc = new Document({ title, sections: [{ children }] });
  return new Uint8Array(await Packer.toBuffer(doc));
}

const CONTENT_TYPES: Record<Format, string> = {
  markdown: 'text/markdown',
  html: 'text/html',
  text: 'text/plain',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

const HTML_TEXT_OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
  ],
};

/** An HTML page's text as a reader sees it. */
const htmlText = (html: string) => convert(html, HTML_TEXT_OPTIONS);

/** A markdown document as a page a documentation site would serve. */
function htmlPageOf(markdown: string, title: string): string {
  const body = marked.parse(markdown, { async: false });
  return `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${title}</title></head>\n<body>\n<main>\n${body}</main>\n</body>\n</html>\n`;
}

const EXTENSIONS: Record<Format, string> = {
  markdown: '.md',
  html: '.html',
  text: '.txt',
  pdf: '.pdf',
  docx: '.docx',
};

/**
 * A markdown document uploaded as a file of `format`: a PDF or Word file generated from it, a
 * page rendered from it (marked), or the markdown saved as a .txt file. `path` is the uploaded
 * file's path with the format's extension.
 */
export async function uploadAs(path: string, markdown: string, format: Format): Promise<Upload> {
  const named = path.replace(/\.[a-z]+$/, EXTENSIONS[format]);
  const title = named.split('/').pop()!;
  const upload = (bytes: Uint8Array, text: string): Upload => ({
    path: named,
    format,
    bytes,
    contentType: CONTENT_TYPES[format],
    text,
  });
  if (format === 'pdf' || format === 'docx') {
    const blocks = markdownBlocks(markdown, format === 'pdf' ? pdfSafe : undefined);
    const bytes = format === 'pdf' ? await pdfOf(blocks, title) : await docxOf(blocks, title);
    return upload(bytes, blocksText(blocks));
  }
  if (format === 'html') {
    const page = htmlPageOf(markdown, title);
    return upload(new TextEncoder().encode(page), htmlText(page));
  }
  return upload(new TextEncoder().encode(markdown), markdown);
}

/** One source file of set B as its upload: `path` is the source's path under the corpus. */
export async function uploadOf(path: string, source: string): Promise<Upload> {
  const generated = /\.(pdf|docx)\.md$/.exec(path)?.[1] as 'pdf' | 'docx' | undefined;
  if (generated !== undefined) return uploadAs(path.slice(0, -'.md'.length), source, generated);
  const format: Format = path.endsWith('.html')
    ? 'html'
    : path.endsWith('.txt')
      ? 'text'
      : 'markdown';
  return {
    path,
    format,
    bytes: new TextEncoder().encode(source),
    contentType: CONTENT_TYPES[format],
    text: format === 'html' ? htmlText(source) : source,
  };
}
