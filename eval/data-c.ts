// Set C: documentation of seven more npm packages (eval/corpus-c, see its SOURCES.md), in the
// formats users upload, with questions of set B's form (eval/questions-c.json). Split into
// C-dev (tune on it) and C-test (report only) by set A's rule, so C broadens what may be tuned
// on without reading B. Every key fact is checked against its document as a reader sees it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { checkQuestionsB, type QuestionB } from './data-b.js';
import { EVAL_DIR, SPLITS, type Split } from './data.js';
import { uploadAs, type Format, type Upload } from './documents.js';

export const CORPUS_C_DIR = join(EVAL_DIR, 'corpus-c');
const QUESTIONS = 'questions-c.json';

/**
 * How each source file is uploaded, written down so it never changes between runs: each
 * package's files spread over the formats users upload (PDF and Word generated from the
 * markdown, an HTML page rendered by marked, the markdown saved as .txt, or as it is), each
 * format held by files of several packages and kinds of page (reference, guide, table).
 */
export const FORMAT_OF: Record<string, Format> = {
  'fast-json-stringify/README.md': 'docx',
  'fastify-multipart/README.md': 'text',
  'fastify/Hooks.md': 'docx',
  'fastify/Prototype-Poisoning.md': 'html',
  'fastify/Routes.md': 'markdown',
  'find-my-way/README.md': 'html',
  'keyv/README.md': 'pdf',
  'pino/api.md': 'pdf',
  'pino/redaction.md': 'markdown',
  'pino/transports.md': 'html',
  'undici/Client.md': 'text',
  'undici/Errors.md': 'docx',
  'undici/mocking-request.md': 'text',
};

/** Set C's documents as uploads (PDF and Word files generated now), in path order. */
export async function readCorpusC(dir = CORPUS_C_DIR): Promise<Upload[]> {
  const found: string[] = [];
  for (const pkg of readdirSync(dir, { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    for (const name of readdirSync(join(dir, pkg.name))) {
      if (name.endsWith('.md')) found.push(`${pkg.name}/${name}`);
    }
  }
  const listed = Object.keys(FORMAT_OF).sort();
  if (found.sort().join('\n') !== listed.join('\n')) {
    throw new Error(`eval/corpus-c: its files (${found.join(', ')}) are not FORMAT_OF's`);
  }
  return Promise.all(
    listed.map((path) => uploadAs(path, readFileSync(join(dir, path), 'utf8'), FORMAT_OF[path]!)),
  );
}

const splitField = z.object({ split: z.enum(SPLITS) }).loose();

export type QuestionC = QuestionB & { split: Split };

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Set A's split rule (eval/data.ts), applied to set C: the answerable questions' files in order
 * of the sha256 of their path, each file's questions all going to the split that held fewer
 * questions of the same kinds so far (tie: dev); the unanswerable ones in order of the sha256
 * of their id, alternately dev and test. The result is written into questions-c.json (so it
 * never moves); test/eval checks that it is this rule's.
 */
export function splitByRule(questions: QuestionB[]): Map<string, Split> {
  const splits = new Map<string, Split>();
  const held: Record<Split, Map<string, number>> = { dev: new Map(), test: new Map() };
  const answerable = questions.filter((q) => q.file !== undefined);
  const files = [...new Set(answerable.map((q) => q.file!))].sort((a, b) =>
    sha256(a) < sha256(b) ? -1 : 1,
  );
  for (const file of files) {
    const own = answerable.filter((q) => q.file === file);
    const load = (s: Split) => own.reduce((n, q) => n + (held[s].get(q.kind) ?? 0), 0);
    const split: Split = load('test') < load('dev') ? 'test' : 'dev';
    for (const q of own) {
      held[split].set(q.kind, (held[split].get(q.kind) ?? 0) + 1);
      splits.set(q.id, split);
    }
  }
  const none = questions
    .filter((q) => q.file === undefined)
    .sort((a, b) => (sha256(a.id) < sha256(b.id) ? -1 : 1));
  none.forEach((q, i) => splits.set(q.id, i % 2 === 0 ? 'dev' : 'test'));
  return splits;
}

/**
 * The questions, parsed and checked as set B's are (schema, every key fact in its document),
 * each with its split: one file's questions all on one side.
 */
export function checkQuestionsC(raw: unknown, uploads: Upload[], name = QUESTIONS): QuestionC[] {
  if (!Array.isArray(raw)) throw new Error(`eval/${name}: not a list of questions`);
  const splits = raw.map((q, i) => {
    const parsed = splitField.safeParse(q);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`eval/${name}: ${i}.${issue.path.join('.')}: ${issue.message}`);
    }
    return parsed.data.split;
  });
  const questions = checkQuestionsB(
    raw.map((q) => {
      const { split: _split, ...rest } = q as Record<string, unknown>;
      return rest;
    }),
    uploads,
    name,
  );
  const sideOfFile = new Map<string, Split>();
  return questions.map((q, i) => {
    const split = splits[i]!;
    if (q.file !== undefined) {
      const side = sideOfFile.get(q.file) ?? split;
      if (side !== split)
        throw new Error(`eval/${name}: ${q.id}: ${q.file}'s questions are in ${side}`);
      sideOfFile.set(q.file, side);
    }
    return { ...q, split };
  });
}

export function readQuestionsC(uploads: Upload[]): QuestionC[] {
  const raw: unknown = JSON.parse(readFileSync(join(EVAL_DIR, QUESTIONS), 'utf8'));
  return checkQuestionsC(raw, uploads);
}
