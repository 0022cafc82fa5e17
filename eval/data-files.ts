// Set A-dev-files (dev: tune on it): set A's dev questions asked of set A's documents uploaded
// in the other formats users upload: each document generated as a PDF, a Word file, an HTML
// page, and saved as a .txt file, one chatbot per format. It shows what reading a format costs
// an answer, on questions it is allowed to tune on (set B's formats are held out).
import type { CorpusFile, Question } from './data.js';
import { type Format, uploadAs, type Upload } from './documents.js';
import { hasFact } from './score.js';

export const FILE_FORMATS = ['pdf', 'docx', 'html', 'text'] as const satisfies readonly Format[];
export type FileFormat = (typeof FILE_FORMATS)[number];

export interface FormatCorpus {
  format: FileFormat;
  uploads: Upload[];
  /** The uploaded file of each set A document (by its corpus path). */
  byCorpusPath: Map<string, Upload>;
}

export async function readCorpusAs(
  corpus: CorpusFile[],
  format: FileFormat,
): Promise<FormatCorpus> {
  const uploads = await Promise.all(corpus.map((file) => uploadAs(file.path, file.text, format)));
  return {
    format,
    uploads,
    byCorpusPath: new Map(corpus.map((file, i) => [file.path, uploads[i]!])),
  };
}

/**
 * Whether a question can be judged in this format: each key fact must still be in the text
 * its files show there (a fact written with markup, such as `code` ticks, is not in a PDF's).
 */
export const judgeableIn = (q: Question, files: FormatCorpus): boolean =>
  [q.file, ...(q.alsoIn ?? [])].every((path) => {
    const text = files.byCorpusPath.get(path)?.text ?? '';
    return q.keyFacts.every((fact) => hasFact(text, fact));
  });
