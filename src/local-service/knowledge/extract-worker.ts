// The entry of an extraction worker thread (see extract-pool.ts): converts the files it is sent,
// one at a time, and answers each with its text or the reason it could not be read.
import { parentPort } from 'node:worker_threads';
import { convertFile, type FileKind } from './extract.js';
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

parentPort?.on('message', (job: ExtractJob) => {
  void run(job).then((reply) => parentPort?.postMessage(reply));
});
