// Runs the chatbridge CLI as a child process, in a folder of the test's choosing, from the
// JavaScript that test/build-once.ts compiled for this run (the `system` project's setup).
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '..');
/** Where test/build-once.ts writes the run's JavaScript, laid out as dist/ is. */
export const BUILD_DIR = join(root, '.test-build');

/** The built JavaScript of a .ts file under the package root (`src/cli.ts` → its .js). */
export function built(file: string): string {
  return join(BUILD_DIR, file.replace(/\.ts$/, '.js'));
}

const cli = built('src/cli.ts');

/** Runs `chatbridge <args>` in `cwd` (a fresh folder: a developer's .env must not leak in). */
export function runCli(
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string },
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
