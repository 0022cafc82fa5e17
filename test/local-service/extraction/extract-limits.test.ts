// The limits every extraction keeps, whatever thread it runs in: the text cap (20 times the
// file's size, at least 1 MiB, at most maxTextBytes) and a .docx's inflated size, declared and
// actual, checked before mammoth reads it.
import { describe, expect, it } from 'vitest';
import {
  ExtractionLimitError,
  extractText,
  textLimitFor,
} from '../../../src/local-service/extraction/index.js';
import { checkDocxInflation } from '../../../src/local-service/extraction/docx.js';
import { docxBomb, jsonNestingBomb, pdfBomb } from '../knowledge/bombs.js';
import { buildDocx } from '../knowledge/fixtures.js';

const MiB = 1024 * 1024;

async function refusal(work: Promise<unknown>): Promise<ExtractionLimitError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExtractionLimitError);
  return error as ExtractionLimitError;
}

describe('textLimitFor', () => {
  it('allows 20 times the file, at least 1 MiB, at most the configured limit', () => {
    expect(textLimitFor(100_000, 10 * MiB)).toBe(2_000_000);
    expect(textLimitFor(10, 10 * MiB)).toBe(MiB);
    expect(textLimitFor(5 * MiB, 10 * MiB)).toBe(10 * MiB);
    expect(textLimitFor(10, 1000)).toBe(1000);
  });
});

describe('a .docx bomb', () => {
  it('whose document.xml inflates to ~100 MB is refused by its declared size, before inflating', async () => {
    const bomb = await docxBomb(100);
    expect(bomb.byteLength).toBeLessThan(400_000);
    const error = await refusal(extractText({ bytes: bomb, fileName: 'bomb.docx' }));
    // 20 × ~310 kB of text at most, and five times that inflated.
    expect(error.message).toMatch(
      /^"bomb\.docx": the \.docx would inflate to more than \d+ bytes$/,
    );
  });

  it('whose zip declares 1 kB for that part is refused while inflating it', async () => {
    const liar = await docxBomb(100, true);
    const error = await refusal(extractText({ bytes: liar, fileName: 'liar.docx' }));
    expect(error.message).toBe(
      '"liar.docx": the .docx part "word/document.xml" inflates to more than the 1024 bytes it declares',
    );
  });

  it('passes the check when its parts fit, and still reads as before', async () => {
    const honest = buildDocx(['Hello from Word.']);
    await expect(checkDocxInflation(honest, 10_000)).resolves.toBeUndefined();
    await expect(checkDocxInflation(honest, 100)).rejects.toThrow(/inflate to more than 100 bytes/);
    expect((await extractText({ bytes: honest, fileName: 'ok.docx' })).text).toBe(
      'Hello from Word.',
    );
  });

  it('that is not a zip at all is reported as unreadable, not as a limit', async () => {
    const error = await extractText({
      bytes: new TextEncoder().encode('PK but not really'),
      fileName: 'fake.docx',
    }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ExtractionLimitError);
    expect((error as Error).message).toMatch(/"fake\.docx": not a readable \.docx file/);
  });
});

describe('the text cap', () => {
  // 32 times a cap set low proves what 20 MB against 1 MiB did, in a tenth of the reading.
  it('stops a PDF whose content stream inflates to 2 MB of text once it passes the cap', async () => {
    const bomb = await pdfBomb(2, 'text');
    const cap = 64 * 1024;
    const error = await refusal(
      extractText({ bytes: bomb, fileName: 'bomb.pdf' }, { maxTextBytes: cap }),
    );
    expect(error.message).toBe(`"bomb.pdf": the extracted text would exceed ${cap} bytes`);
  });

  // Against a cap set to 64 KiB, 400 levels (2.4 kB, 160 kB of text) cross it as 1,500 levels
  // (9 kB, 2.2 MB) crossed the default 1 MiB, for a fifteenth of the rendering.
  it('refuses JSON whose nesting turns 2.4 kB into 160 kB of indented lines, past the cap', async () => {
    const bomb = jsonNestingBomb(400);
    const cap = 64 * 1024;
    expect(textLimitFor(bomb.byteLength, cap)).toBe(cap);
    const error = await refusal(
      extractText({ bytes: bomb, fileName: 'deep.json' }, { maxTextBytes: cap }),
    );
    expect(error.message).toBe(`"deep.json": the extracted text would exceed ${cap} bytes`);
  });

  it('applies the configured maximum to plain text too', async () => {
    const text = new TextEncoder().encode('word '.repeat(1000));
    await refusal(extractText({ bytes: text, fileName: 'long.txt' }, { maxTextBytes: 1000 }));
    const ok = await extractText({ bytes: text, fileName: 'long.txt' }, { maxTextBytes: 5000 });
    expect(ok.text.length).toBe(4999);
  });
});
