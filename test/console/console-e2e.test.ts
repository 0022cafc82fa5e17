// `npm start` end to end: the CLI as a child process with piped stdin, on the embedded local
// service with its demo chatbot, in a fresh data folder.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function runStart(input: string, dataDir: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'start'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CHATBRIDGE_DATA_DIR: dataDir,
        CHATBRIDGE_STREAM_DELAY_MS: '0',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('npm start with piped input', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'chatbridge-console-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers each line in order with sources and exits 0 at end of input', async () => {
    const result = await runStart(
      'How do I connect chatbridge to Slack?\n/chatbot list\nHow do I run the tests?\n',
      dataDir,
    );
    expect(result.stderr).not.toMatch(/Error|at .*\.ts:\d+/);
    expect(result.code).toBe(0);
    const out = result.stdout;
    const first = out.indexOf('you> How do I connect chatbridge to Slack?');
    const list = out.indexOf('you> /chatbot list');
    const second = out.indexOf('you> How do I run the tests?');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(list).toBeGreaterThan(first);
    expect(second).toBeGreaterThan(list);
    // Each question got a cited answer from the demo chatbot's docs.
    const firstAnswer = out.slice(first, list);
    expect(firstAnswer).toMatch(/bot> /);
    expect(firstAnswer).toMatch(/Sources:\n\s+\[1\] /);
    expect(out.slice(list, second)).toContain('chatbridge demo');
    expect(out.slice(second)).toMatch(/npm test/);
  }, 60_000);

  it('keeps the demo chatbot across restarts (one chatbot, not two)', async () => {
    const result = await runStart('/chatbot list\n', dataDir);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/chatbridge demo/g)?.length).toBe(1);
  }, 60_000);
});
