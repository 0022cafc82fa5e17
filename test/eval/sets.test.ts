// The question sets of `npm run eval`: set A's dev/test split stays where it was written down,
// set B loads in every upload format with its key facts checked, and `--set` names the sets.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkQuestionsB, readCorpusB } from '../../eval/data-b.js';
import { docxOf, markdownBlocks, pdfOf, type Upload } from '../../eval/documents.js';
import mammoth from 'mammoth';
import {
  KINDS,
  readCorpus,
  readQaPairs,
  readQuestions,
  readUnanswerable,
  setsNamed,
} from '../../eval/data.js';
import {
  FILE_FORMATS,
  type FormatCorpus,
  judgeableIn,
  readCorpusAs,
} from '../../eval/data-files.js';
import { isCjk } from '../../eval/floor.js';

describe('set A\u2019s dev/test split', () => {
  const questions = readQuestions(readCorpus());
  const pairs = readQaPairs();

  it('has not moved: the ids of each split are the ones written down on 2026-11-25', () => {
    // Moving a question between dev and test would let a tuned-on question be reported as
    // held out. Adding one changes this digest: check its split, then update the digest.
    const lines = [...questions, ...pairs].map((q) => `${q.id}:${q.split}`).sort();
    const digest = createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
    expect(digest).toBe('e56e700c4a3f0387');
  });

  it('puts every kind and the Q&A pairs on both sides', () => {
    for (const kind of KINDS) {
      const splits = new Set(questions.filter((q) => q.kind === kind).map((q) => q.split));
      expect([kind, [...splits].sort()]).toEqual([kind, ['dev', 'test']]);
    }
    expect(new Set(pairs.map((p) => p.split))).toEqual(new Set(['dev', 'test']));
  });

  it('keeps all questions about one file on one side', () => {
    const sides = new Map<string, Set<string>>();
    for (const q of questions) sides.set(q.file, (sides.get(q.file) ?? new Set()).add(q.split));
    expect([...sides].filter(([, s]) => s.size > 1)).toEqual([]);
  });
});

describe('--set', () => {
  it('names dev (what may be tuned on), test (everything else) and each set', () => {
    expect(setsNamed('dev')).toEqual(['A-dev', 'A-dev-files', 'CJK-dev', 'C-dev']);
    expect(setsNamed('cjk-dev')).toEqual(['CJK-dev']);
    expect(setsNamed('test')).toEqual(['A-test', 'B', 'C-test']);
    expect(setsNamed('c-test')).toEqual(['C-test']);
    expect(setsNamed('b')).toEqual(['B']);
    expect(() => setsNamed('train')).toThrow(/no set "train"/);
  });
});

describe('set B', () => {
  let uploads: Upload[] = [];
  beforeAll(async () => {
    uploads = await readCorpusB();
  });

  it('uploads markdown, HTML, plain text, and a PDF and a Word file generated now', () => {
    expect(new Set(uploads.map((u) => u.format))).toEqual(
      new Set(['markdown', 'html', 'text', 'pdf', 'docx']),
    );
    const pdf = uploads.find((u) => u.format === 'pdf')!;
    expect(new TextDecoder().decode(pdf.bytes.slice(0, 5))).toBe('%PDF-');
    expect(pdf.path).toMatch(/\.pdf$/);
    const docx = uploads.find((u) => u.format === 'docx')!;
    expect([...docx.bytes.slice(0, 2)]).toEqual([0x50, 0x4b]); // a zip archive
    expect(uploads.some((u) => isCjk(u.text))).toBe(true);
  });

  it('reads an HTML page as its words, without markup', () => {
    const html = uploads.find((u) => u.format === 'html')!;
    expect(html.text).toContain('Backbone.View');
    expect(html.text).not.toMatch(/<a href|class="|<\/p>/);
  });

  it('has the questions issue #20 asks for, each key fact in its document', () => {
    const raw: unknown = JSON.parse(
      readFileSync(new URL('../../eval/questions-b.json', import.meta.url), 'utf8'),
    );
    // checkQuestionsB throws on any key fact that is not in its document.
    const questions = checkQuestionsB(raw, uploads);
    const byPath = new Map(uploads.map((u) => [u.path, u]));
    const answerable = questions.filter((q) => q.kind !== 'unanswerable');
    expect(answerable.length).toBeGreaterThanOrEqual(40);
    expect(questions.length - answerable.length).toBeGreaterThanOrEqual(8);
    expect(answerable.filter((q) => isCjk(q.question)).length).toBeGreaterThanOrEqual(6);
    for (const q of answerable) expect(byPath.has(q.file!)).toBe(true);
  });

  it('rejects a key fact its document does not hold, and an unanswerable question with a file', () => {
    const file = uploads[0]!.path;
    expect(() =>
      checkQuestionsB(
        [{ id: 'x', kind: 'howto', question: 'q?', file, keyFacts: ['zebra-quokka-93'] }],
        uploads,
      ),
    ).toThrow(/key fact zebra-quokka-93 is not in/);
    expect(() =>
      checkQuestionsB([{ id: 'x', kind: 'unanswerable', question: 'q?', file }], uploads),
    ).toThrow(/unanswerable question has no file/);
    expect(() =>
      checkQuestionsB(
        [{ id: 'x', kind: 'option', question: 'q?', file: 'nope/x.md', keyFacts: ['a'] }],
        uploads,
      ),
    ).toThrow(/no document "nope\/x.md"/);
  });
});

describe('generated PDF and Word files', () => {
  const blocks = markdownBlocks(
    '# Limits\n\nThe **default** is `5000` ms.\n\n- first item\n\n| key | default |\n| --- | --- |\n| `dot` | `false` |\n\n```js\nconst a = 1;\n```\n',
  );

  it('lay out the markdown as blocks a reader sees: no markup, table cells apart', () => {
    expect(blocks).toEqual([
      { type: 'heading', depth: 1, text: 'Limits' },
      { type: 'paragraph', text: 'The default is 5000 ms.' },
      { type: 'item', text: 'first item' },
      { type: 'row', cells: ['key', 'default'] },
      { type: 'row', cells: ['dot', 'false'] },
      { type: 'code', text: 'const a = 1;' },
    ]);
  });

  it('hold that text for a PDF reader and a Word reader', async () => {
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const data = await pdfOf(blocks, 'limits.pdf');
    const pdf = await pdfjs.getDocument({ data, verbosity: 0 }).promise;
    const content = await (await pdf.getPage(1)).getTextContent();
    // Joined as a PDF reader joins the pieces: as they are, a line end where one is marked.
    const pdfText = content.items
      .map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : '') : ''))
      .join('');
    expect(pdfText).toMatch(/Limits[\s\S]*The default is 5000 ms\.[\s\S]*const a = 1;/);
    await pdf.destroy();
    const docx = await mammoth.extractRawText({
      buffer: Buffer.from(await docxOf(blocks, 'limits')),
    });
    expect(docx.value).toMatch(
      /Limits[\s\S]*The default is 5000 ms\.[\s\S]*dot[\s\S]*const a = 1;/,
    );
  });
});

describe('set A-dev-files', () => {
  const corpus = readCorpus();
  const small = corpus.find((f) => f.path === 'cookie/README.md')!;

  it('uploads each set A document as a PDF, a Word file, an HTML page and a .txt file', async () => {
    const files = await Promise.all(FILE_FORMATS.map((format) => readCorpusAs([small], format)));
    const uploads = files.map((f) => f.byCorpusPath.get(small.path)!);
    expect(uploads.map((u) => u.path)).toEqual([
      'cookie/README.pdf',
      'cookie/README.docx',
      'cookie/README.html',
      'cookie/README.txt',
    ]);
    const [pdf, docx, html, text] = uploads;
    expect(new TextDecoder().decode(pdf!.bytes.slice(0, 5))).toBe('%PDF-');
    const word = await mammoth.extractRawText({ buffer: Buffer.from(docx!.bytes) });
    expect(word.value).toContain('Basic HTTP cookie parser and serializer');
    expect(new TextDecoder().decode(html!.bytes)).toMatch(/^<!doctype html>[\s\S]*<h1/);
    expect(html!.text).toContain('Basic HTTP cookie parser');
    expect(html!.text).not.toContain('<!doctype');
    expect(text!.contentType).toBe('text/plain');
    expect(new TextDecoder().decode(text!.bytes)).toBe(small.text);
  });

  it('asks only what can be judged in a format: every key fact is in the text shown there', () => {
    const q = readQuestions(corpus).find((x) => x.file === small.path)!;
    const shown = (text: string): FormatCorpus => ({
      format: 'text',
      uploads: [],
      byCorpusPath: new Map([[small.path, { ...({} as Upload), text }]]),
    });
    expect(judgeableIn(q, shown(small.text))).toBe(true);
    expect(judgeableIn(q, shown('nothing of it'))).toBe(false);
  });
});

describe('questions set A\u2019s documents do not answer', () => {
  const none = readUnanswerable();

  it('alternate dev and test in the order of the sha256 of their ids', () => {
    const order = [...none].sort((a, b) =>
      createHash('sha256').update(a.id).digest('hex') <
      createHash('sha256').update(b.id).digest('hex')
        ? -1
        : 1,
    );
    expect(order.map((q) => q.split)).toEqual(order.map((_, i) => (i % 2 === 0 ? 'dev' : 'test')));
  });
});
