// `npm run check`: the type check and the lint, their two halves side by side.
// - oxlint, with oxlint-tsgolint, builds the project on TypeScript 7's native checker and in
//   that one pass reports its type errors (`--type-check`) and runs the two type-aware rules,
//   no-floating-promises and no-misused-promises (.oxlintrc.json).
// - ESLint runs the rest (eslint.config.js), which needs no types, in this process.
// Before, TypeScript 5.9 checked the program and typescript-eslint ran the two rules on it:
// about 66 CPU-s of the suite's 190 on a 2-core machine; this is about 38. `npm run typecheck`
// (tsc 5.9, the compiler `npm run build` uses) and `npm run lint` still run alone.
// `npm test` runs it at a lower CPU priority (`nice -n 10`) beside vitest: the tests' waits on
// child processes and Redis get the CPU when they need it, and this takes what is left.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';

const require = createRequire(import.meta.url);

/** Runs oxlint's type-aware pass; its report goes straight to this process's output. */
function typeCheckAndTypedLint(): Promise<boolean> {
  const oxlint = join(dirname(require.resolve('oxlint/package.json')), 'bin', 'oxlint');
  const child = spawn(process.execPath, [oxlint, '--type-aware', '--type-check'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code === 0));
  });
}

async function untypedLint(): Promise<boolean> {
  const eslint = new ESLint();
  const results = await eslint.lintFiles(['.']);
  const report = await (await eslint.loadFormatter('stylish')).format(results);
  if (report !== '') process.stdout.write(report);
  return results.every((result) => result.errorCount === 0);
}

const passed = await Promise.all([typeCheckAndTypedLint(), untypedLint()]);
process.exitCode = passed.every(Boolean) ? 0 : 1;
