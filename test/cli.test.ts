// The CLI's own duties: a .env in the working directory fills in unset variables.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

describe('.env', () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'chatbridge-cli-'));
    await writeFile(join(cwd, '.env'), 'CHATBRIDGE_STORE=bogus://nowhere\n');
  });
  afterEach(() => rm(cwd, { recursive: true, force: true }));

  it('is read from the working directory', async () => {
    const result = await runCli(['admin', 'help'], { cwd, env: { CHATBRIDGE_DATA_DIR: cwd } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/CHATBRIDGE_STORE/);
  });

  it('never overrides what the environment sets', async () => {
    const result = await runCli(['admin', 'help'], {
      cwd,
      env: { CHATBRIDGE_DATA_DIR: cwd, CHATBRIDGE_STORE: 'memory://' },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/chatbot create/);
  });
});
