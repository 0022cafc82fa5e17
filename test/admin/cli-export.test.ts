// `chatbridge admin feedback export --out` from the shell: the real CLI, a SQLite store seeded
// with a vote, the file written where --out says (relative to the working directory).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { runCli } from '../run-cli.js';

describe('chatbridge admin feedback export', () => {
  let cwd: string;
  beforeEach(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'chatbridge-feedback-'));
  });
  afterEach(() => rm(cwd, { recursive: true, force: true }));

  it('writes the CSV to --out', async () => {
    const store = `sqlite://${join(cwd, 'state.sqlite')}`;
    const state = await openState(store);
    await state.feedback.vote(
      {
        messageUuid: 'm-1',
        platform: 'discord',
        workspace: 'G1',
        channel: 'C1',
        thread: 'T1',
        chatbotUuid: 'bot-1',
        sessionUuid: 's-1',
        question: 'Where is the office?',
        answerExcerpt: 'In Lisbon.',
        answeredAt: '2025-01-01T00:00:00.000Z',
      },
      'U1',
      'down',
    );
    await state.close();
    const result = await runCli(
      ['admin', 'feedback', 'export', '--format', 'csv', '--out', 'exports/votes.csv'],
      { cwd, env: { CHATBRIDGE_DATA_DIR: cwd, CHATBRIDGE_STORE: store } },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const path = join(cwd, 'exports', 'votes.csv');
    expect(result.stdout).toContain(`Wrote 1 row to ${path}.`);
    const [header, row] = (await readFile(path, 'utf8')).split('\r\n');
    expect(header).toMatch(/^id,vote,reason,question,/);
    expect(row).toMatch(/^fb-[0-9a-f]{12},down,,Where is the office\?,In Lisbon\.,bot-1,/);
  });
});
