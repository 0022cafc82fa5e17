// `npm start` end to end: the CLI as a child process with piped stdin, on the embedded local
// service with its demo chatbot, in a fresh data folder.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../run-cli.js';

function runStart(input: string, dataDir: string) {
  return runCli(['start'], {
    cwd: dataDir,
    input,
    env: { CHATBRIDGE_DATA_DIR: dataDir, CHATBRIDGE_STREAM_DELAY_MS: '0' },
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
