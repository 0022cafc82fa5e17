// vitest globalSetup of the `system` project: compiles src/, adapters/ and the test's own
// process scripts to JavaScript once per run (esbuild, which tsx and vitest already use), so
// every child process the system tests start is plain `node file.js`: no TypeScript loader
// compiling the CLI again in each one. Laid out as dist/ is (.test-build/src/…), so paths
// found from the package root work the same.
import { rm } from 'node:fs/promises';
import { build } from 'esbuild';
import { BUILD_DIR, root } from './run-cli.js';
import { typescriptFiles } from './typescript-files.js';

export default async function setup(): Promise<void> {
  await rm(BUILD_DIR, { recursive: true, force: true });
  const entryPoints = [
    ...typescriptFiles(root, 'src'),
    ...typescriptFiles(root, 'adapters'),
    ...typescriptFiles(root, 'test/local-service/fixtures'),
    ...typescriptFiles(root, 'test/state/fixtures'),
  ];
  await build({
    entryPoints,
    outdir: BUILD_DIR,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    sourcemap: 'inline',
    logLevel: 'warning',
  });
}
