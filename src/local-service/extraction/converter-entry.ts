// How a converter process (extract-pool.ts) is started. From the compiled package: the
// extract-worker.js beside this file. From the TypeScript sources (`npm start` under tsx, the
// tests under vitest): the worker compiled once per process by esbuild (tsx's own compiler,
// installed wherever tsx is) into one file under node_modules/.cache, then started as plain
// JavaScript. Started through tsx's loader instead, each converter compiles its modules again
// in a loader thread and takes about twice as long to come up; converters start often (one
// per file past a limit, one per service). Without esbuild, or where the cache cannot be
// written, the .ts entry starts with tsx's loader as before.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';

export interface ConverterEntry {
  /** The module the child process runs. */
  path: string;
  /** Node flags besides the heap limit (the parent's own are never passed on). */
  execArgv: string[];
}

const fromSources = import.meta.url.endsWith('.ts');
let compiled: ConverterEntry | undefined;

/** The entry of a converter process, resolved once per process. */
export function converterEntry(): ConverterEntry {
  if (!fromSources) {
    return { path: fileURLToPath(new URL('./extract-worker.js', import.meta.url)), execArgv: [] };
  }
  compiled ??= compiledWorker() ?? withTsx();
  return compiled;
}

function withTsx(): ConverterEntry {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return {
    path: fileURLToPath(new URL('./extract-worker.ts', import.meta.url)),
    execArgv: ['--import', tsx],
  };
}

/**
 * The worker and this package's own modules in one ESM file; packages stay imports, found from
 * node_modules/.cache as from the sources. Named by content, written whole then renamed, so
 * two processes (or an older checkout) never start a half-written or stale file.
 */
function compiledWorker(): ConverterEntry | undefined {
  try {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const out = esbuild.buildSync({
      entryPoints: [fileURLToPath(new URL('./extract-worker.ts', import.meta.url))],
      bundle: true,
      packages: 'external',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    }).outputFiles[0];
    if (out === undefined) return undefined;
    const hash = createHash('sha256').update(out.contents).digest('hex').slice(0, 16);
    const dir = join(root, 'node_modules', '.cache', 'chatbridge');
    const path = join(dir, `extract-worker-${hash}.mjs`);
    if (!existsSync(path)) {
      mkdirSync(dir, { recursive: true });
      const partial = `${path}.${process.pid}.tmp`;
      writeFileSync(partial, out.contents);
      renameSync(partial, path);
    }
    return { path, execArgv: [] };
  } catch {
    return undefined;
  }
}
