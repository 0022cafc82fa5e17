// .docx → text with mammoth, after the zip has been checked against a bomb: the sizes its
// central directory declares must fit the budget before anything is inflated, and every part
// is then inflated once (yauzl, which reads the same central directory as mammoth's JSZip)
// with its actual bytes counted, so a part that inflates past what it declared or past the
// budget is refused before mammoth parses a byte of it. Only then does mammoth convert it,
// to HTML (heading styles as <h1>…<h6>), read as html.ts reads any page.
import yauzl from 'yauzl';
import { htmlToText } from './html.js';
import { ExtractionLimitError } from './errors.js';

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

/** Paragraph styles that hold code: ours below, Word's own, pandoc's. */
const CODE_STYLES = ['Code', 'HTML Preformatted', 'Source Code'];
/** Font names of fixed-width faces (Courier New, Consolas, Menlo, Fira Mono, ...). */
const FIXED_WIDTH = /mono|courier|consolas|menlo|monaco|lucida console|source code|cascadia/i;

/** What mammoth's document transform is handed: its model of the document (runs carry fonts). */
interface DocElement {
  type: string;
  children?: DocElement[];
  font?: string | null;
  styleId?: string | null;
  styleName?: string | null;
}

const runsOf = (element: DocElement): DocElement[] =>
  element.type === 'run' ? [element] : (element.children ?? []).flatMap(runsOf);

/** A paragraph whose every run is set in a fixed-width font is code. */
function markCode(element: DocElement): DocElement {
  const children = element.children?.map(markCode);
  const marked = children === undefined ? element : { ...element, children };
  if (marked.type !== 'paragraph') return marked;
  const runs = runsOf(marked);
  const code = runs.length > 0 && runs.every((run) => FIXED_WIDTH.test(run.font ?? ''));
  return code ? { ...marked, styleId: 'Code', styleName: 'Code' } : marked;
}

export async function docxToText(
  bytes: Uint8Array,
  maxTextBytes: number,
): Promise<{ text: string }> {
  await checkDocxInflation(bytes, docxInflateLimit(maxTextBytes));
  const mammoth = (await import('mammoth')).default;
  try {
    // Through HTML, so heading styles become headings and lists stay lists (html.ts), and
    // code (a code style, or every run in a fixed-width font) a <pre> block, as mammoth's
    // README shows: a Word file marks its code by nothing else.
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes) },
      {
        transformDocument: markCode,
        styleMap: CODE_STYLES.map((name) => `p[style-name='${name}'] => pre:separator('\\n')`),
      },
    );
    return { text: htmlToText(result.value).text };
  } catch (error) {
    throw new Error(`not a readable .docx file: ${(error as Error).message}`);
  }
}
