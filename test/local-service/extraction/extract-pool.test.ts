// The converter processes that run the converters a hostile file can blow up: a file that takes too
// long or needs too much memory fails alone with a clear limit error, its process is replaced,
// and the files after it are read as usual.
import { spawnSync } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ExtractionLimitError,
  ExtractionPool,
  type ExtractionPoolOptions,
  extractText,
} from '../../../src/local-service/extraction/index.js';
import { pdfBomb } from '../knowledge/bombs.js';
import { buildDocx, buildPdf } from '../knowledge/fixtures.js';
import { built } from '../../run-cli.js';

// The pool as `npm run build` ships it: compiled once for the run (test/build-once.ts), so the
// child process below is plain node, not a TypeScript loader compiling the modules again.
const poolModule = pathToFileURL(built('src/local-service/extraction/extract-pool.ts')).href;

/** 500 kB of PDF whose 500 MB of blank content takes pdfjs seconds to read. */
let slowPdf: Uint8Array;
beforeAll(async () => {
  slowPdf = await pdfBomb(500, 'blank');
});

let pools: ExtractionPool[] = [];
afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  pools = [];
});

function poolOf(options: ExtractionPoolOptions): ExtractionPool {
  const pool = new ExtractionPool(options);
  pools.push(pool);
  return pool;
}

const read = (pool: ExtractionPool, fileName: string, bytes: Uint8Array) =>
  extractText({ bytes, fileName }, { convert: pool.convert });

describe('ExtractionPool', () => {
  // One pool for the tests that need no heap of their own: a converter loads pdfjs for several
  // tests, not one per test (each is half a CPU-second). The pool is created by the first test
  // (it checks that the process starts on first use) and closed by the last of this block.
  // A file's clock starts once its converter has loaded the reader: the ordinary files here
  // (a fresh converter's first small PDF the slowest, at most 170 ms with four busy processes
  // on two cores) have about six times that in the 1 s limit on a starved CI machine.
  describe('one pool, 1 s a file', () => {
    let pool: ExtractionPool | undefined;
    const jobStarts = new EventEmitter();
    const shared = () =>
      (pool ??= new ExtractionPool({
        workers: 1,
        timeoutMs: 1000,
        onJobStart: (job) => jobStarts.emit('start', job),
      }));
    afterAll(() => pool?.close());

    it('reads PDFs, .docx and HTML in a converter process, reusing it', async () => {
      expect(shared().size).toBe(0); // created on first use
      const pdf = await read(shared(), 'a.pdf', buildPdf(['Refunds within 30 days.']));
      expect(pdf.text).toBe('Refunds within 30 days.');
      const docx = await read(shared(), 'b.docx', buildDocx(['Hello from Word.']));
      expect(docx.text).toBe('Hello from Word.');
      const html = await read(
        shared(),
        'c.html',
        new TextEncoder().encode('<head><title>T</title></head><p>Hi</p>'),
      );
      expect(html).toEqual({ text: 'Hi', title: 'T' });
      expect(shared().size).toBe(1);
    });

    // The bomb goes to the converter the test above left, which has loaded pdfjs; a new one
    // loads it again before the next file: seconds on a loaded machine.
    it(
      'terminates a file past the time limit, and the next file gets a new process',
      { timeout: 30_000 },
      async () => {
        const started: string[] = [];
        const starts = (job: { kind: string }) => started.push(job.kind);
        jobStarts.on('start', starts);
        const bomb = read(shared(), 'slow.pdf', slowPdf);
        // Queued behind the bomb on the only worker.
        const next = read(shared(), 'after.pdf', buildPdf(['Still answering.']));
        const error = await bomb.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ExtractionLimitError);
        expect((error as Error).message).toBe('"slow.pdf": extraction took longer than 1 s');
        expect((await next).text).toBe('Still answering.');
        jobStarts.off('start', starts);
        expect(started).toEqual(['pdf', 'pdf']);
        expect(shared().size).toBe(1);
      },
    );

    it('reports a damaged file as unreadable, not as a limit', async () => {
      const error = await read(
        shared(),
        'broken.pdf',
        new TextEncoder().encode('%PDF-1.4 junk'),
      ).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(ExtractionLimitError);
      expect((error as Error).message).toMatch(/"broken\.pdf": not a readable PDF/);
    });

    // Last of this block: it closes the pool, while the bomb is inside its 1 s (close() follows
    // the start in the same turn of the event loop, before any timer can fire).
    it('close() fails the files in progress and ends every converter process', async () => {
      const closing = shared();
      const running = once(jobStarts, 'start');
      const bomb = read(closing, 'slow.pdf', slowPdf).catch((e: unknown) => e);
      await running;
      await closing.close();
      expect(((await bomb) as Error).message).toMatch(/text extraction has been closed/);
      expect(closing.size).toBe(0);
      await expect(read(closing, 'late.pdf', buildPdf(['x']))).rejects.toThrow(/closed/);
    });
  });

  it('turns a converter running out of memory into a limit error for that file alone', async () => {
    // A 16 MB heap, so that less must be built to cross it (a converter started uses 7 MB; the
    // JSON reader needs no pdfjs). 150 000 small objects: over twice what it holds once parsed
    // and rendered (well past the limit, V8 gives up at once; just past it, it collects for
    // seconds first).
    const pool = poolOf({ workers: 1, memoryMb: 16 });
    const items = Array.from({ length: 150_000 }, (_, i) => `{"id":${i},"name":"item ${i}"}`);
    const json = `[${items.join(',')}]`;
    const error = await read(pool, 'big.json', new TextEncoder().encode(json)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExtractionLimitError);
    expect((error as Error).message).toBe(
      '"big.json": extraction needed more than 16 MB of memory',
    );
    expect((await read(pool, 'ok.json', new TextEncoder().encode('{"a":1}'))).text).toBe('a: 1');
  });

  it(
    'stops a PDF whose inflated stream grows the converter past twice its heap',
    { timeout: 60_000 },
    async () => {
      // pdfjs holds the inflated stream in a buffer outside the V8 heap, which the heap limit
      // does not count: left alone, this file would grow the process by ~800 MB, then yield
      // "no text". The resident-memory watch stops it at twice the heap: a 32 MB heap, in
      // which pdfjs loads with room to spare (it does in 24 MB, not in 16), so the watch acts
      // after 64 MB of growth, a second of reading.
      const pool = poolOf({ workers: 1, memoryMb: 32, timeoutMs: 60_000 });
      const error = await read(pool, 'blank.pdf', slowPdf).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExtractionLimitError);
      expect((error as Error).message).toBe(
        '"blank.pdf": extraction needed more than 32 MB of memory',
      );
    },
  );

  it('does not keep a converter that grew by more than its heap', { timeout: 60_000 }, async () => {
    const pool = poolOf({ workers: 1, memoryMb: 64, timeoutMs: 60_000 });
    // 55 MB of blanks: read to the end (no text), with ~85 MB of buffers on the way: more than
    // the heap, less than twice it. Not a smaller heap: pdfjs doubles its buffer and frees the
    // old one when V8 collects, so at 32 MB the growth fell on either side of that window.
    const error = await read(pool, 'blank.pdf', await pdfBomb(55, 'blank')).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/no text could be extracted/);
    expect(pool.size).toBe(0);
    expect((await read(pool, 'small.pdf', buildPdf(['Small.']))).text).toBe('Small.');
    expect(pool.size).toBe(1);
  });

  it('close() ends a process whose only work was the pool (nothing left unsettled)', async () => {
    // A script that converts a file and closes the pool: an unheld converter's exit was never
    // heard, so `await pool.close()` never settled and Node quit with code 13.
    const script = `
      import { ExtractionPool } from ${JSON.stringify(poolModule)};
      const pool = new ExtractionPool({ workers: 1 });
      await pool.prepare('Some text.');
      await pool.close();
      console.log('closed');`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('closed');
    expect(run.status).toBe(0);
  });

  it("loads pdfjs's worker code with the PDF reader, before a file's clock starts", () => {
    // In a process of its own: in this one, an earlier test's PDF may have loaded it already.
    const extract = pathToFileURL(built('src/local-service/extraction/extract.ts')).href;
    const script = `
      import { loadConverterFor } from ${JSON.stringify(extract)};
      await loadConverterFor('pdf');
      console.log(typeof globalThis.pdfjsWorker?.WorkerMessageHandler);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stdout.trim()).toBe('function');
  });
});
