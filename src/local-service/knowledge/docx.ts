// .docx → text with mammoth, after the zip has been checked against a bomb: the sizes its
// central directory declares must fit the budget before anything is inflated, and every part
// is then inflated once (yauzl, which reads the same central directory as mammoth's JSZip)
// with its actual bytes counted, so a part that inflates past what it declared or past the
// budget is refused before mammoth parses a byte of it. Only then does mammoth convert it,
// to HTML (heading styles as <h1>…<h6>), read as html.ts reads any page.
import yauzl from 'yauzl';
import { htmlToText } from './html.js';
import { ExtractionLimitError } from './types.js';

/** Total inflated bytes allowed for a .docx whose text may be at most maxTextBytes. */
export const docxInflateLimit = (maxTextBytes: number): number => 5 * maxTextBytes;

const tooBig = (limit: number) =>
  new ExtractionLimitError(`the .docx would inflate to more than ${limit} bytes`);

/** Throws ExtractionLimitError when the archive declares or inflates to more than limit bytes. */
export async function checkDocxInflation(bytes: Uint8Array, limit: number): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      {
        autoClose: false,
        validateEntrySizes: false, // counted below, to name the rule that was broken
      },
    );
  } catch (error) {
    throw new Error(`not a readable .docx file: ${(error as Error).message}`);
  }
  try {
    const entries: yauzl.Entry[] = [];
    let declared = 0;
    for await (const entry of zip.eachEntry()) {
      declared += entry.uncompressedSize;
      if (declared > limit) throw tooBig(limit);
      entries.push(entry);
    }
    // Each part within its declared size keeps the whole within the limit checked above.
    for (const entry of entries) {
      if (entry.fileName.endsWith('/')) continue;
      const stream = await zip.openReadStreamPromise(entry);
      let part = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        part += chunk.length;
        if (part > entry.uncompressedSize) {
          stream.destroy();
          throw new ExtractionLimitError(
            `the .docx part "${entry.fileName}" inflates to more than the ${entry.uncompressedSize} bytes it declares`,
          );
        }
      }
    }
  } catch (error) {
    if (error instanceof ExtractionLimitError) throw error;
    throw new Error(`not a readable .docx file: ${(error as Error).message}`);
  } finally {
    zip.close();
  }
}

export async function docxToText(
  bytes: Uint8Array,
  maxTextBytes: number,
): Promise<{ text: string }> {
  await checkDocxInflation(bytes, docxInflateLimit(maxTextBytes));
  const mammoth = (await import('mammoth')).default;
  try {
    // Through HTML, so heading styles become headings and lists stay lists (html.ts).
    const result = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
    return { text: htmlToText(result.value).text };
  } catch (error) {
    throw new Error(`not a readable .docx file: ${(error as Error).message}`);
  }
}
