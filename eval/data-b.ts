// Set B: held out (issue #20). Documentation of other npm packages in the formats users
// upload (eval/corpus-b, see its SOURCES.md) and questions about it (eval/questions-b.json),
// including questions the documents do not answer. Never tuned on: report its figures only.
// Every key fact is checked against the text of its document as a reader sees it (for a PDF or
// a Word file, the text it was generated from).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { EVAL_DIR, KINDS } from './data.js';
import { uploadOf, type Upload } from './documents.js';
import { hasFact } from './score.js';

export const CORPUS_B_DIR = join(EVAL_DIR, 'corpus-b');

/** Set B's kinds: A's, a question worded unlike its document, and one no document answers. */
export const B_KINDS = [...KINDS, 'paraphrase', 'unanswerable'] as const;
export type BKind = (typeof B_KINDS)[number];

const words = z.string().regex(/\S/, { error: 'must not be empty' });

const questionSchema = z
  .object({
    id: words,
    kind: z.enum(B_KINDS),
    first: words.optional(),
    question: words,
    /** The uploaded file that answers, e.g. "luxon/zones.pdf"; none for an unanswerable one. */
    file: words.optional(),
    alsoIn: z.array(words).optional(),
    keyFacts: z.array(words).min(1).optional(),
    wrongIf: z.array(words).optional(),
  })
  .strict()
  .refine((q) => (q.kind === 'followup') === (q.first !== undefined), {
    error: 'a follow-up needs "first" and only a follow-up has it',
    path: ['first'],
  })
  .refine(
    (q) => (q.kind === 'unanswerable') === (q.file === undefined && q.keyFacts === undefined),
    {
      error: 'an unanswerable question has no file and no key facts; every other one has both',
      path: ['file'],
    },
  );
export type QuestionB = z.infer<typeof questionSchema>;

/** Source files are read in a stable order; LICENSE and SOURCES.md are not documents. */
function sourcePaths(dir: string): string[] {
  const paths: string[] = [];
  for (const pkg of readdirSync(dir, { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    for (const name of readdirSync(join(dir, pkg.name)).sort()) {
      if (/\.(md|html|txt)$/.test(name)) paths.push(`${pkg.name}/${name}`);
    }
  }
  return paths.sort();
}

/** Set B's documents as uploads (PDF and Word files generated now). */
export async function readCorpusB(dir = CORPUS_B_DIR): Promise<Upload[]> {
  return Promise.all(
    sourcePaths(dir).map((path) => uploadOf(path, readFileSync(join(dir, path), 'utf8'))),
  );
}

/** The questions, parsed and checked against the documents' text. */
export function checkQuestionsB(
  raw: unknown,
  uploads: Upload[],
  name = 'questions-b.json',
): QuestionB[] {
  const parsed = z.array(questionSchema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`eval/${name}: ${issue.path.join('.')}: ${issue.message}`);
  }
  const byPath = new Map(uploads.map((u) => [u.path, u.text]));
  const ids = new Set<string>();
  for (const q of parsed.data) {
    if (ids.has(q.id)) throw new Error(`eval/${name}: id "${q.id}" is used twice`);
    ids.add(q.id);
    for (const file of q.file === undefined ? [] : [q.file, ...(q.alsoIn ?? [])]) {
      const text = byPath.get(file);
      if (text === undefined) throw new Error(`eval/${name}: ${q.id}: no document "${file}"`);
      for (const fact of q.keyFacts ?? []) {
        if (!hasFact(text, fact)) {
          throw new Error(`eval/${name}: ${q.id}: key fact ${fact} is not in ${file}`);
        }
      }
    }
  }
  return parsed.data;
}

export function readQuestionsB(uploads: Upload[]): QuestionB[] {
  const raw: unknown = JSON.parse(readFileSync(join(EVAL_DIR, 'questions-b.json'), 'utf8'));
  return checkQuestionsB(raw, uploads);
}
