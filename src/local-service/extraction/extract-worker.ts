// The entry of an extraction child process (see extract-pool.ts): says it is ready, then does
// the jobs it is sent over IPC, one at a time: converting a file to text, or reading a text as
// Markdown and cutting it into chunks (marked's lexer can be made slow by nesting). For each job
// it loads the reader the kind needs, says the job has started (its clock starts then), and
// answers with the result or the reason it failed. It ends with its parent: a service that dies
// leaves no converter behind.
import { prepareText, type PreparedText } from '../knowledge/chunk-store.js';
import { convertFile, loadConverterFor, type ExtractedText, type FileKind } from './extract.js';
import { ExtractionLimitError } from './errors.js';

export type ExtractTask =
  | { type: 'convert'; kind: FileKind; bytes: Uint8Array; maxTextBytes: number }
  | { type: 'prepare'; text: string };

export type ExtractJob = ExtractTask & { id: number };

export type ExtractReply =
  | { id: number; ok: true; result: ExtractedText | PreparedText }
  | { id: number; ok: false; limit: boolean; message: string };

/** What a converter process sends: 'ready' once, then per job its start and its reply. */
export type WorkerMessage = 'ready' | { started: number } | ExtractReply;

async function run(job: ExtractJob, send: (message: WorkerMessage) => void): Promise<ExtractReply> {
  try {
    await loadConverterFor(job.type === 'prepare' ? 'prepare' : job.kind);
    send({ started: job.id });
    const result =
      job.type === 'prepare'
        ? prepareText(job.text)
        : await convertFile(job.kind, job.bytes, job.maxTextBytes);
    return { id: job.id, ok: true, result };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { id: job.id, ok: false, limit: error instanceof ExtractionLimitError, message };
  }
}

const send = process.send?.bind(process);
if (send !== undefined) {
  process.on('message', (job: ExtractJob) => {
    void run(job, send).then((reply) => send(reply));
  });
  process.on('disconnect', () => process.exit(0));
  send('ready' satisfies WorkerMessage);
}
