import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_EXTENSIONS,
  extractText,
  UnsupportedFileTypeError,
} from '../../../src/local-service/extraction/index.js';
import { buildDocx, buildPdf } from '../knowledge/fixtures.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('extractText', () => {
  it('reads .txt and .md as UTF-8, stripping a BOM and normalizing line ends', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('Café au lait\r\nline two')]);
    expect(await extractText({ bytes, fileName: 'notes.txt' })).toEqual({
      text: 'Café au lait\nline two',
    });
    const md = await extractText({ bytes: utf8('# Title\n\nSome *text*.'), fileName: 'README.MD' });
    expect(md.text).toBe('# Title\n\nSome *text*.');
  });

  it('turns JSON into key: value lines, keeping keys and nesting', async () => {
    const json = JSON.stringify({
      product: 'Widget',
      price: 10,
      tags: ['a', 'b'],
      owner: { name: 'Ann', active: true },
    });
    const { text } = await extractText({ bytes: utf8(json), fileName: 'data.json' });
    expect(text).toBe(
      'product: Widget\nprice: 10\ntags:\n  - a\n  - b\nowner:\n  name: Ann\n  active: true',
    );
    const list = await extractText({
      bytes: utf8('[{"q":"one"},{"q":"two","n":null}]'),
      fileName: 'l.json',
    });
    expect(list.text).toBe('q: one\n\nq: two\nn: null');
    await expect(extractText({ bytes: utf8('{nope'), fileName: 'bad.json' })).rejects.toThrow(
      /bad\.json.*not valid JSON/,
    );
  });

  it('turns CSV rows into column: value paragraphs (quotes and embedded commas handled)', async () => {
    const csv = 'name,price,note\r\nBasic,10,"cheap, simple"\r\nPro,25,"says ""hi"""\r\n';
    const { text } = await extractText({ bytes: utf8(csv), fileName: 'plans.csv' });
    expect(text).toBe(
      'name: Basic\nprice: 10\nnote: cheap, simple\n\nname: Pro\nprice: 25\nnote: says "hi"',
    );
  });

  it('cleans HTML: no nav/script/style, headings and paragraphs kept, title from <title>', async () => {
    const html = `<!doctype html><html><head><title>Install &amp; Run</title><style>p{color:red}</style></head>
      <body><nav><a href="/">Home</a> | <a href="/docs">Docs</a></nav>
      <h1>Installing</h1><p>Run <a href="/x">the installer</a> first.</p>
      <script>console.log("secret")</script><p>Then start it.</p><ul><li>one</li><li>two</li></ul></body></html>`;
    const { text, title } = await extractText({ bytes: utf8(html), fileName: 'page.html' });
    expect(title).toBe('Install & Run');
    expect(text).toBe(
      '# Installing\n\nRun the installer first.\n\nThen start it.\n\n * one\n * two',
    );
    expect(text).not.toMatch(/Home|secret|color|\/x/);
  });

  it('reads the text of a hand-built PDF with pdfjs (no worker needed in Node)', async () => {
    const bytes = buildPdf(['Refunds are issued within 30 days.', 'Contact support (by email).']);
    const { text } = await extractText({ bytes, fileName: 'policy.pdf' });
    expect(text).toBe('Refunds are issued within 30 days.\nContact support (by email).');
    // The caller's buffer is not detached by pdfjs.
    expect(bytes.byteLength).toBeGreaterThan(0);
  });

  it('reports a broken PDF clearly', async () => {
    await expect(
      extractText({ bytes: utf8('%PDF-1.4 garbage'), fileName: 'broken.pdf' }),
    ).rejects.toThrow(/broken\.pdf.*not a readable PDF/);
  });

  it('reads a .docx with mammoth', async () => {
    const bytes = buildDocx(['Hello from Word.', 'Second paragraph.']);
    const { text } = await extractText({ bytes, fileName: 'letter.docx' });
    expect(text).toBe('Hello from Word.\n\nSecond paragraph.');
  });

  it('refuses unknown types with UnsupportedFileTypeError naming the accepted list', async () => {
    const error = await extractText({ bytes: utf8('x'), fileName: 'sheet.xlsx' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnsupportedFileTypeError);
    expect((error as UnsupportedFileTypeError).accepted).toEqual(ACCEPTED_EXTENSIONS);
    expect((error as Error).message).toContain('sheet.xlsx');
    await expect(extractText({ bytes: utf8('x'), fileName: 'noextension' })).rejects.toBeInstanceOf(
      UnsupportedFileTypeError,
    );
  });

  it('uses the content type when the name has no extension', async () => {
    const { text } = await extractText({
      bytes: utf8('<p>Hi there</p>'),
      fileName: 'upload',
      contentType: 'text/html; charset=utf-8',
    });
    expect(text).toBe('Hi there');
  });

  it('fails clearly when a file holds no text', async () => {
    await expect(extractText({ bytes: utf8('  \n '), fileName: 'empty.txt' })).rejects.toThrow(
      /empty\.txt.*no text could be extracted/,
    );
    await expect(
      extractText({ bytes: utf8('<script>x()</script>'), fileName: 'e.html' }),
    ).rejects.toThrow(/no text/);
  });
});
