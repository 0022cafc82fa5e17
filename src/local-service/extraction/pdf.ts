// PDF → text with pdfjs-dist's legacy build (the one that runs in Node without a DOM). In Node
// pdfjs runs its worker in-process ("fake worker"), so no worker file needs to be configured.
// Text is read as a stream per page, so a PDF whose content inflates to far more text than
// allowed is stopped as soon as it passes maxTextBytes rather than after the whole page.
import type { TextItem, TextStyle } from 'pdfjs-dist/types/src/display/api.js';
import { fenced } from '../knowledge/markdown-source.js';
import { ExtractionLimitError } from './errors.js';

/**
 * One line of a page as pdfjs laid it out: its text, its largest font size, its baseline, where
 * it starts, and whether it is set in a fixed-width font alone (code: a PDF marks it by
 * nothing else).
 */
interface Line {
  text: string;
  size: number;
  y: number;
  x: number;
  fixed: boolean;
}

/** A bullet glyph and the space after it, at the start of a line: a list item. */
const BULLET = /^[•◦▪‣●○■□–]\s+/u;

/** A fixed-width face advances about 0.6 em a character (Courier 0.6, Menlo 0.6, Consolas
 * 0.55): how far a code line starts to the right, in characters, is its indentation. */
const FIXED_ADVANCE = 0.6;

/** A line this much larger than the body text is a heading (a typical H2 is 1.2–1.5×). */
const HEADING_SIZE = 1.15;
/** A gap between lines of more than this many line heights ends a paragraph. */
const PARAGRAPH_GAP = 1.5;

function flatTitles(items: { title: string; items?: unknown[] }[]): string[] {
  return items.flatMap((item) => [
    item.title.replace(/\s+/g, ' ').trim(),
    ...flatTitles((item.items ?? []) as { title: string; items?: unknown[] }[]),
  ]);
}

/** "Page 3 of 12", "- 4 -", "12": a page number line. */
const PAGE_NUMBER = /^[-–—\s]*(?:page\s*)?\d+(?:\s*(?:of|\/)\s*\d+)?[-–—\s]*$/i;

/**
 * Pages without their furniture: the first and last lines that repeat on at least half of
 * the pages (numbers read alike, so "Page 3" and "Page 4" repeat), and page numbers.
 */
function withoutFurniture(pages: Line[][]): Line[][] {
  const shape = (line: Line) => line.text.replace(/\d+/g, '#').toLowerCase();
  const edges = (lines: Line[]) =>
    new Set([lines[0], lines.at(-1)].filter(Boolean).map((l) => shape(l!)));
  const counts = new Map<string, number>();
  for (const lines of pages)
    for (const edge of edges(lines)) counts.set(edge, (counts.get(edge) ?? 0) + 1);
  const repeated = (line: Line) =>
    pages.length >= 3 && (counts.get(shape(line)) ?? 0) >= pages.length / 2;
  return pages.map((lines) =>
    lines.filter((line, i) => {
      const edge = i === 0 || i === lines.length - 1;
      return !(edge && (repeated(line) || PAGE_NUMBER.test(line.text)));
    }),
  );
}

/**
 * The pages as Markdown-shaped text: a line in a font clearly larger than the body's, or named
 * in the outline, is a heading; a wide gap ends a paragraph; each page ends one.
 */
function pagesToText(pages: Line[][], titles: ReadonlySet<string>): string {
  const sizes = pages
    .flat()
    .filter((line) => !line.fixed)
    .map((line) => line.size)
    .sort((a, b) => a - b);
  const body = sizes[Math.floor(sizes.length / 2)] ?? 0;
  const isHeading = (line: Line) =>
    !line.fixed &&
    line.text.length <= 120 &&
    !/[.,;:]$/.test(line.text) &&
    (titles.has(line.text) || (body > 0 && line.size >= HEADING_SIZE * body));
  // One pass over every page's lines: a page ends a paragraph, but a code block running on
  // from the foot of one page to the head of the next is one block.
  const lines = pages.flatMap((page, p) =>
    page.map((line, i) => ({ line, opensPage: i === 0 && p > 0 })),
  );
  let text = '';
  let code: Line[] = [];
  lines.forEach(({ line, opensPage }, i) => {
    if (line.fixed) {
      code.push(line);
      if (lines[i + 1]?.line.fixed === true) return;
      text += `\n\n${codeBlock(code)}\n\n`;
      code = [];
      return;
    }
    if (isHeading(line)) {
      text += `\n\n## ${line.text}\n\n`;
      return;
    }
    const previous = opensPage ? undefined : lines[i - 1]?.line;
    const gap = previous === undefined ? 0 : Math.abs(previous.y - line.y);
    const broken =
      opensPage || (previous !== undefined && gap > PARAGRAPH_GAP * Math.max(line.size, 1));
    // A bullet glyph starts a list item; a line broken after a word's hyphen reads on
    // without a space ("user-defined"; the hyphen stays, as it may be the word's own).
    const written = line.text.replace(BULLET, '- ');
    const joint =
      text === '' || text.endsWith('\n\n')
        ? ''
        : broken
          ? '\n\n'
          : /\p{L}-$/u.test(text) && /^\p{L}/u.test(written)
            ? ''
            : '\n';
    text += joint + written;
  });
  return text.trim();
}

/** Lines in a fixed-width font as a fenced code block, each indented as far as it starts
 * right of the block's leftmost line. */
function codeBlock(lines: Line[]): string {
  const left = Math.min(...lines.map((line) => line.x));
  const indent = (line: Line) =>
    ' '.repeat(Math.max(0, Math.round((line.x - left) / (FIXED_ADVANCE * line.size || 1))));
  return fenced(lines.map((line) => indent(line) + line.text).join('\n'));
}

export async function pdfToText(
  bytes: Uint8Array,
  maxTextBytes: number = Infinity,
): Promise<{ text: string; title?: string }> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdfjs takes ownership of (and detaches) the buffer it is given: hand it a copy.
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (error) {
    throw new Error(`not a readable PDF: ${(error as Error).message}`);
  }
  try {
    const pages: Line[][] = [];
    let size = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const reader = page.streamTextContent().getReader();
      const lines: Line[] = [];
      const styles: Record<string, TextStyle> = {};
      const newLine = (): Line => ({ text: '', size: 0, y: 0, x: 0, fixed: true });
      let line = newLine();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const content = value as { items: unknown[]; styles?: Record<string, TextStyle> };
        Object.assign(styles, content.styles);
        for (const item of content.items) {
          if (typeof item !== 'object' || item === null || !('str' in item)) continue;
          const piece = item as TextItem;
          if (line.text === '') {
            line.y = piece.transform[5] as number;
            line.x = piece.transform[4] as number;
          }
          line.text += piece.str;
          line.size = Math.max(line.size, Math.abs(piece.transform[3] as number));
          if (piece.str.trim() !== '')
            line.fixed &&= styles[piece.fontName]?.fontFamily === 'monospace';
          if (piece.hasEOL) {
            lines.push(line);
            line = newLine();
          }
          size += Buffer.byteLength(piece.str) + 1;
        }
        // Not reader.cancel(): pdfjs would go on enqueueing into the closed stream and throw
        // uncaught; destroying the document (below) stops its work cleanly.
        if (size > maxTextBytes) throw ExtractionLimitError.textTooLong(maxTextBytes);
      }
      lines.push(line);
      pages.push(
        lines
          // Code keeps its spacing; the line's start gives its indentation (codeBlock).
          .map((l) => ({
            ...l,
            text: l.fixed ? l.text.trim() : l.text.replace(/\s+/g, ' ').trim(),
          }))
          .filter((l) => l.text !== ''),
      );
      page.cleanup();
    }
    const outline = await doc.getOutline().catch(() => null);
    const titles = new Set(flatTitles(outline ?? []));
    const info = (await doc.getMetadata().catch(() => undefined))?.info as
      { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' ? info.Title.trim() : '';
    const text = pagesToText(withoutFurniture(pages), titles);
    return title === '' ? { text } : { text, title };
  } finally {
    await doc.destroy();
  }
}
