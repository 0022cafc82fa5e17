// The entry of an extraction worker thread (see extract-pool.ts): loads the converters, says it
// is ready, then converts the files it is sent, one at a time, answering each with its text or
// the reason it could not be read.
import { parentPort } from 'node:worker_threads';
import { convertFile, loadConverters, type FileKind } from './extract.js';
import { ExtractionLimitError } from './types.js';

export interface ExtractJob {
  id: number;
  kind: FileKind;
  bytes: Uint8Array;
  maxTextBytes: number;
}

export type ExtractReply =
  | { id: number; ok: true; text: string; title?: string }
  | { id: number; ok: false; limit: boolean; message: string };

/** What a worker posts: 'ready' once, then one reply per job. */
export type WorkerMessage = 'ready' | ExtractReply;

async function run(job: ExtractJob): Promise<ExtractReply> {
  try {
    const { text, title } = await convertFile(job.kind, job.bytes, job.maxTextBytes);
    return title === undefined
      ? { id: job.id, ok: true, text }
      : { id: job.id, ok: true, text, title };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { id: job.id, ok: false, limit: error instanceof ExtractionLimitError, message };
  }
}

const port = parentPort;
if (port !== null) {
  port.on('message', (job: ExtractJob) => {
    void run(job).then((reply) => port.postMessage(reply satisfies WorkerMessage));
  });
  // No top-level await: from the TypeScript sources this file is loaded as CommonJS.
  void loadConverters().then(() => port.postMessage('ready' satisfies WorkerMessage));
}
