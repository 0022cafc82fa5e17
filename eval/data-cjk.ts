// Set CJK-dev: a dev set (tune on it) for issue #20's target "CJK questions over CJK documents".
// Chinese and Japanese documentation of npm packages in neither set A nor set B
// (eval/corpus-cjk, see its SOURCES.md) and questions about it (eval/questions-cjk.json), in
// set B's form and checked the same way: every key fact is literally in its document.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkQuestionsB, readCorpusB, type QuestionB } from './data-b.js';
import { EVAL_DIR } from './data.js';
import type { Upload } from './documents.js';

export const CORPUS_CJK_DIR = join(EVAL_DIR, 'corpus-cjk');
const QUESTIONS = 'questions-cjk.json';

/** The set's documents as uploads (markdown files, read as set B's are). */
export const readCorpusCjk = (dir = CORPUS_CJK_DIR): Promise<Upload[]> => readCorpusB(dir);

/** The questions, parsed and checked against the documents' text. */
export function readQuestionsCjk(uploads: Upload[]): QuestionB[] {
  const raw: unknown = JSON.parse(readFileSync(join(EVAL_DIR, QUESTIONS), 'utf8'));
  return checkQuestionsB(raw, uploads, QUESTIONS);
}
