// The converter processes that run the converters a hostile file can blow up: a file that takes too
// long or needs too much memory fails alone with a clear limit error, its process is replaced,
// and the files after it are read as usual.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
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
  it('reads PDFs, .docx and HTML in a converter process, reusing it', async () => {
    const pool = poolOf({ workers: 1 });
    expect(pool.size).toBe(0); // created on first use
    const pdf = await read(pool, 'a.pdf', buildPdf(['Refunds within 30 days.']));
    expect(pdf.text).toBe('Refunds within 30 days.');
    const docx = await read(pool, 'b.docx', buildDocx(['Hello from Word.']));
    expect(docx.text).toBe('Hello from Word.');
    const html = await read(
      pool,
      'c.html',
      new TextEncoder().encode('<head><title>T</title></head><p>Hi</p>'),
    );
    expect(html).toEqual({ text: 'Hi', title: 'T' });
    expect(pool.size).toBe(1);
  });

  // A new worker loads pdfjs before the next file: seconds on a loaded machine.
  it(
    'terminates a file past the time limit, and the next file gets a new process',
    { timeout: 30_000 },
    async () => {
      const started: string[] = [];
      const pool = poolOf({
        workers: 1,
        timeoutMs: 1000,
        onJobStart: ({ kind }) => started.push(kind),
      });
      const bomb = read(pool, 'slow.pdf', slowPdf);
      // Queued behind the bomb on the only worker.
      const next = read(pool, 'after.pdf', buildPdf(['Still answering.']));
      const error = await bomb.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExtractionLimitError);
      expect((error as Error).message).toBe('"slow.pdf": extraction took longer than 1 s');
      expect((await next).text).toBe('Still answering.');
      expect(started).toEqual(['pdf', 'pdf']);
      expect(pool.size).toBe(1);
    },
  );

  it('turns a converter running out of memory into a limit error for that file alone', async () => {
    const pool = poolOf({ workers: 1, memoryMb: 32 });
    // 300 000 small objects: three times what a 32 MB heap holds once parsed and rendered.
    const json = JSON.stringify(
      Array.from({ length: 300_000 }, (_, i) => ({ id: i, name: `item ${i}` })),
    );
    const error = await read(pool, 'big.json', new TextEncoder().encode(json)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExtractionLimitError);
    expect((error as Error).message).toBe(
      '"big.json": extraction needed more than 32 MB of memory',
    );
    expect((await read(pool, 'ok.json', new TextEncoder().encode('{"a":1}'))).text).toBe('a: 1');
  });

  it(
    'stops a PDF whose inflated stream grows the converter past twice its heap',
    { timeout: 60_000 },
    async () => {
      // pdfjs holds the inflated stream in a buffer outside the V8 heap, which the heap limit
      // does not count: left alone, this file would grow the process by ~800 MB, then yield
      // "no text". The resident-memory watch stops it at twice the heap (a small heap, in
      // which pdfjs still loads, so the watch acts early).
      const pool = poolOf({ workers: 1, memoryMb: 64, timeoutMs: 60_000 });
      const error = await read(pool, 'blank.pdf', slowPdf).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExtractionLimitError);
      expect((error as Error).message).toBe(
        '"blank.pdf": extraction needed more than 64 MB of memory',
      );
    },
  );

  it('does not keep a converter that grew by more than its heap', { timeout: 60_000 }, async () => {
    const pool = poolOf({ workers: 1, memoryMb: 64, timeoutMs: 60_000 });
    // 55 MB of blanks: read to the end (no text), with ~85 MB of buffers on the way: more than
    // the heap, less than twice it.
    const error = await read(pool, 'blank.pdf', await pdfBomb(55, 'blank')).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/no text could be extracted/);
    expect(pool.size).toBe(0);
    expect((await read(pool, 'small.pdf', buildPdf(['Small.']))).text).toBe('Small.');
    expect(pool.size).toBe(1);
  });

  it('reports a damaged file as unreadable, not as a limit', async () => {
    const pool = poolOf({ workers: 1 });
    const error = await read(pool, 'broken.pdf', new TextEncoder().encode('%PDF-1.4 junk')).catch(
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(ExtractionLimitError);
    expect((error as Error).message).toMatch(/"broken\.pdf": not a readable PDF/);
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

  it('close() fails the files in progress and ends every converter process', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const pool = poolOf({ workers: 1, timeoutMs: 60_000, onJobStart: () => started() });
    const bomb = read(pool, 'slow.pdf', slowPdf).catch((e: unknown) => e);
    await running;
    await pool.close();
    expect(((await bomb) as Error).message).toMatch(/text extraction has been closed/);
    expect(pool.size).toBe(0);
    await expect(read(pool, 'late.pdf', buildPdf(['x']))).rejects.toThrow(/closed/);
  });
});
