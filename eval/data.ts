// The evaluation set: the corpus files, the questions about them and the Q&A pairs, read and
// checked (every key fact must really be in the file that is said to answer it).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { hasFact } from './score.js';

export const EVAL_DIR = dirname(fileURLToPath(import.meta.url));
export const CORPUS_DIR = join(EVAL_DIR, 'corpus');

export const KINDS = ['definition', 'howto', 'option', 'followup'] as const;
export type Kind = (typeof KINDS)[number];

/**
 * Set A is split once into dev (tune on it) and test (report only; issue #20). The split is the
 * `split` field of each question and Q&A pair, written down so it never moves. It was assigned
 * (2026-11-25) by this rule: the question files in order of the sha256 of their path, each file's
 * questions all going to the split that held fewer questions of the same kinds so far (tie: dev),
 * so no passage is asked about on both sides and each kind has both splits; the Q&A pairs in
 * order of the sha256 of their id, alternately dev and test. A new question takes its file's
 * split; a new file or pair, the split with fewer of its kind.
 */
export const SPLITS = ['dev', 'test'] as const;
export type Split = (typeof SPLITS)[number];

/** The question sets `npm run eval` reports, each on its own. */
export const SETS = ['A-dev', 'A-dev-files', 'CJK-dev', 'C-dev', 'A-test', 'B', 'C-test'] as const;
export type SetName = (typeof SETS)[number];

/**
 * The sets that may be tuned on; every other set is held out (CJK-dev: eval/data-cjk.ts; C-dev
 * and C-test: eval/data-c.ts).
 */
export const DEV_SETS: SetName[] = ['A-dev', 'A-dev-files', 'CJK-dev', 'C-dev'];

/** What `--set` accepts: a set's name, or dev (what may be tuned on) and test (all the rest). */
export function setsNamed(name: string): SetName[] {
  if (name === 'dev') return DEV_SETS;
  if (name === 'test') return SETS.filter((s) => !DEV_SETS.includes(s));
  const found = SETS.find((s) => s.toLowerCase() === name.toLowerCase());
  if (found === undefined)
    throw new Error(`--set: no set "${name}" (dev, test, ${SETS.join(', ')})`);
  return [found];
}

const words = z.string().regex(/\S/, { error: 'must not be empty' });

const questionSchema = z
  .object({
    id: words,
    kind: z.enum(KINDS),
    split: z.enum(SPLITS),
    /** For a follow-up: the question asked before it in the same session. */
    first: words.optional(),
    question: words,
    /** The corpus file that answers, relative to eval/corpus. */
    file: words,
    /** Other files that answer as well (a first citation of one of them is right too). */
    alsoIn: z.array(words).optional(),
    /** What a correct answer must contain: strings, or "/regex/". */
    keyFacts: z.array(words).min(1),
    /** Patterns that make an answer wrong even when the key facts are there. */
    wrongIf: z.array(words).optional(),
  })
  .strict()
  .refine((q) => (q.kind === 'followup') === (q.first !== undefined), {
    error: 'a follow-up needs "first" and only a follow-up has it',
    path: ['first'],
  });
export type Question = z.infer<typeof questionSchema>;

const pairSchema = z
  .object({
    id: words,
    split: z.enum(SPLITS),
    question: words,
    paraphrase: words,
    answer: words,
    keyFact: words,
  })
  .strict();
export type QaPair = z.infer<typeof pairSchema>;

export interface CorpusFile {
  /** Path under eval/corpus, e.g. "ws/ws.md"; also the upload's file name. */
  path: string;
  text: string;
}

export function readCorpus(): CorpusFile[] {
  const files: CorpusFile[] = [];
  for (const pkg of readdirSync(CORPUS_DIR, { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    for (const name of readdirSync(join(CORPUS_DIR, pkg.name)).sort()) {
      if (!name.endsWith('.md')) continue;
      const path = `${pkg.name}/${name}`;
      files.push({ path, text: readFileSync(join(CORPUS_DIR, path), 'utf8') });
    }
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

// Generic over the schema, not its output: inferring T through z.ZodType<T> cost the type
// checker seconds a run.
function readJson<S extends z.core.$ZodType>(name: string, schema: S): z.output<S>[] {
  const raw: unknown = JSON.parse(readFileSync(join(EVAL_DIR, name), 'utf8'));
  const parsed = z.array(schema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`eval/${name}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** The questions, each checked against its file: a fact not in the file is a broken question. */
export function readQuestions(corpus: CorpusFile[]): Question[] {
  const questions = readJson('questions.json', questionSchema);
  const byPath = new Map(corpus.map((f) => [f.path, f.text]));
  const ids = new Set<string>();
  const splitOfFile = new Map<string, Split>();
  for (const q of questions) {
    if (ids.has(q.id)) throw new Error(`eval/questions.json: id "${q.id}" is used twice`);
    ids.add(q.id);
    const split = splitOfFile.get(q.file) ?? q.split;
    if (split !== q.split) {
      throw new Error(`eval/questions.json: ${q.id}: ${q.file}'s questions are in ${split}`);
    }
    splitOfFile.set(q.file, split);
    for (const file of [q.file, ...(q.alsoIn ?? [])]) {
      const text = byPath.get(file);
      if (text === undefined) {
        throw new Error(`eval/questions.json: ${q.id}: file "${file}" is not in eval/corpus`);
      }
      for (const fact of q.keyFacts) {
        if (!hasFact(text, fact)) {
          throw new Error(`eval/questions.json: ${q.id}: key fact ${fact} is not in ${file}`);
        }
      }
    }
  }
  return questions;
}

const unanswerableSchema = z.object({ id: words, split: z.enum(SPLITS), question: words }).strict();
export type Unanswerable = z.infer<typeof unanswerableSchema>;

/**
 * Questions about set A's packages that its documents do not answer (each checked by hand
 * against the corpus when written): a near miss, unlike the documentation questions asked of
 * the Q&A chatbot. The answer must decline. Split as the Q&A pairs are: in order of the sha256
 * of their id, alternately dev and test.
 */
export function readUnanswerable(): Unanswerable[] {
  return readJson('unanswerable.json', unanswerableSchema);
}

export function readQaPairs(): QaPair[] {
  const pairs = readJson('qa-pairs.json', pairSchema);
  for (const pair of pairs) {
    if (!hasFact(pair.answer, pair.keyFact)) {
      throw new Error(`eval/qa-pairs.json: ${pair.id}: key fact is not in its answer`);
    }
  }
  return pairs;
}
