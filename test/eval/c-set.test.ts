// Set C of `npm run eval` (eval/data-c.ts): seven more packages' documentation uploaded in a
// fixed format per file, questions of set B's form with every key fact in the text a reader
// of the upload sees, and the C-dev / C-test split by set A's rule.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { B_KINDS } from '../../eval/data-b.js';
import {
  checkQuestionsC,
  CORPUS_C_DIR,
  FORMAT_OF,
  readCorpusC,
  readQuestionsC,
  splitByRule,
  type QuestionC,
} from '../../eval/data-c.js';
import type { Upload } from '../../eval/documents.js';

describe('set C', () => {
  let uploads: Upload[] = [];
  let questions: QuestionC[] = [];
  beforeAll(async () => {
    uploads = await readCorpusC();
    questions = readQuestionsC(uploads); // throws on a key fact not in its document
  });

  it('uploads each file in the format its table names: PDF, Word, HTML, text and markdown', () => {
    expect(uploads.map((u) => u.format)).toEqual(
      Object.keys(FORMAT_OF)
        .sort()
        .map((path) => FORMAT_OF[path]),
    );
    expect(new Set(uploads.map((u) => u.format))).toEqual(
      new Set(['markdown', 'html', 'text', 'pdf', 'docx']),
    );
    const pdf = uploads.find((u) => u.path === 'keyv/README.pdf')!;
    expect(new TextDecoder().decode(pdf.bytes.slice(0, 5))).toBe('%PDF-');
    const docx = uploads.find((u) => u.path === 'undici/Errors.docx')!;
    expect([...docx.bytes.slice(0, 2)]).toEqual([0x50, 0x4b]); // a zip archive
    const html = uploads.find((u) => u.path === 'find-my-way/README.html')!;
    expect(new TextDecoder().decode(html.bytes)).toMatch(/^<!doctype html>/);
    expect(html.text).not.toMatch(/<a href|<\/p>/);
    expect(uploads.find((u) => u.path === 'undici/mocking-request.txt')!.contentType).toBe(
      'text/plain',
    );
  });

  it('has the questions asked for: 60 answerable, 12 unanswerable, every kind in both splits', () => {
    const answerable = questions.filter((q) => q.kind !== 'unanswerable');
    expect(answerable.length).toBeGreaterThanOrEqual(60);
    expect(questions.length - answerable.length).toBeGreaterThanOrEqual(12);
    for (const kind of B_KINDS) {
      const splits = new Set(questions.filter((q) => q.kind === kind).map((q) => q.split));
      expect([kind, [...splits].sort()]).toEqual([kind, ['dev', 'test']]);
    }
  });

  it('has the split set A\u2019s rule gives, one file\u2019s questions on one side', () => {
    // Moving a question between C-dev and C-test would let a tuned-on question be reported as
    // held out: the split written down must stay the rule's.
    const rule = splitByRule(questions);
    expect(questions.filter((q) => rule.get(q.id) !== q.split).map((q) => q.id)).toEqual([]);
    const sides = new Map<string, Set<string>>();
    for (const q of questions.filter((x) => x.file !== undefined))
      sides.set(q.file!, (sides.get(q.file!) ?? new Set()).add(q.split));
    expect([...sides].filter(([, s]) => s.size > 1)).toEqual([]);
    // Both splits hold files of every format.
    const formatsOf = (split: string) =>
      new Set(
        questions.filter((q) => q.split === split && q.file).map((q) => q.file!.split('.').pop()),
      );
    expect(formatsOf('dev')).toEqual(formatsOf('test'));
  });

  it('rejects a key fact its document does not hold, a missing split, a file on both sides', () => {
    const file = uploads[0]!.path;
    const q = (id: string, split: string, keyFacts = ['a']) => ({
      id,
      kind: 'howto',
      split,
      question: 'q?',
      file,
      keyFacts,
    });
    const fact = uploads[0]!.text.slice(0, 40).trim();
    expect(checkQuestionsC([q('x', 'dev', [fact])], uploads)).toHaveLength(1);
    expect(() => checkQuestionsC([q('x', 'dev', ['zebra-quokka-93'])], uploads)).toThrow(
      /questions-c\.json: x: key fact zebra-quokka-93 is not in/,
    );
    expect(() =>
      checkQuestionsC([{ id: 'x', kind: 'unanswerable', question: 'q?' }], uploads),
    ).toThrow(/split/);
    expect(() => checkQuestionsC([q('x', 'dev', [fact]), q('y', 'test', [fact])], uploads)).toThrow(
      /y: .* questions are in dev/,
    );
  });
});

describe('set C\u2019s corpus folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-c-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The folder as it is, exactly FORMAT_OF's files, is read in full above (beforeAll); a copy
  // with one file more or one less is refused before anything is generated.
  it('must hold exactly the files FORMAT_OF names', async () => {
    for (const path of Object.keys(FORMAT_OF)) {
      mkdirSync(join(dir, path.split('/')[0]!), { recursive: true });
      writeFileSync(join(dir, path), readFileSync(join(CORPUS_C_DIR, path)));
    }
    writeFileSync(join(dir, 'keyv', 'extra.md'), '# Extra\n');
    await expect(readCorpusC(dir)).rejects.toThrow(/not FORMAT_OF's/);
    rmSync(join(dir, 'keyv', 'extra.md'));
    rmSync(join(dir, Object.keys(FORMAT_OF)[0]!));
    await expect(readCorpusC(dir)).rejects.toThrow(/not FORMAT_OF's/);
  });
});
