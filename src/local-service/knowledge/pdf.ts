// PDF → text with pdfjs-dist's legacy build (the one that runs in Node without a DOM). In Node
// pdfjs runs its worker in-process ("fake worker"), so no worker file needs to be configured.
// Text is read as a stream per page, so a PDF whose content inflates to far more text than
// allowed is stopped as soon as it passes maxTextBytes rather than after the whole page.
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { ExtractionLimitError } from './types.js';

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
    const pages: string[] = [];
    let size = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const reader = page.streamTextContent().getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const item of (value as { items: unknown[] }).items) {
          if (typeof item !== 'object' || item === null || !('str' in item)) continue;
          const piece = item as TextItem;
          text += piece.str + (piece.hasEOL ? '\n' : '');
          size += Buffer.byteLength(piece.str) + 1;
        }
        // Not reader.cancel(): pdfjs would go on enqueueing into the closed stream and throw
        // uncaught; destroying the document (below) stops its work cleanly.
        if (size > maxTextBytes) throw ExtractionLimitError.textTooLong(maxTextBytes);
      }
      pages.push(text.replace(/[ \t]+\n/g, '\n').trim());
      page.cleanup();
    }
    const info = (await doc.getMetadata().catch(() => undefined))?.info as
      { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' ? info.Title.trim() : '';
    const text = pages.filter((p) => p !== '').join('\n\n');
    return title === '' ? { text } : { text, title };
  } finally {
    await doc.destroy();
  }
}
