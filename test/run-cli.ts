// Runs the chatbridge CLI as a child process, in a folder of the test's choosing.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const tsx = join(root, 'node_modules/tsx/dist/loader.mjs');
const cli = join(root, 'src/cli.ts');

/** Runs `chatbridge <args>` in `cwd` (a fresh folder: a developer's .env must not leak in). */
export function runCli(
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string },
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, ['--import', tsx, cli, ...args], {
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
