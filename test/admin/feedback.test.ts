// feedback list / export / add-qa over the real memory store: filters, the workspace scope of
// platform admins, durations, export formats (RFC 4180 CSV, formula-safe; JSONL), --out.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  localFileWriter,
  renderText,
  runAdminLine,
  type AdminContext,
  type FileBlock,
} from '../../src/admin/index.js';
import { csvField, toCsv } from '../../src/admin/feedback-export.js';
import type { AnswerRecord, FeedbackRecord } from '../../src/state/types.js';
import { errorsOf, makeContext, notices } from './context.js';

const NOW = Date.parse('2025-02-03T04:05:06Z');

function answerOf(overrides: Partial<AnswerRecord>): AnswerRecord {
  return {
    messageUuid: 'm-1',
    platform: 'slack',
    workspace: 'W1',
    channel: 'C1',
    thread: '1.0',
    chatbotUuid: 'bot-a',
    sessionUuid: 's-1',
    question: 'How long do refunds take?',
    answerExcerpt: 'Refunds take 30 days.',
    answeredAt: '2025-02-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Votes cast at given times (ms before NOW) through a store on a clock the test moves. */
async function seeded(overrides: Partial<AdminContext> = {}) {
  const ctx = await makeContext(overrides);
  const bot = ctx.client.addChatbot('Support');
  const other = ctx.client.addChatbot('Sales');
  const vote = async (
    answer: Partial<AnswerRecord>,
    user: string,
    vote: 'up' | 'down',
    reason?: string,
  ) => {
    const record = answerOf({ chatbotUuid: bot.uuid, ...answer });
    const { record: row } = await ctx.state.feedback.vote(record, user, vote);
    if (reason) await ctx.state.feedback.setReason(row.id, reason);
    return row;
  };
  return { ctx, bot, other, vote };
}

describe('feedback commands', () => {
  it('lists the votes of this workspace, newest first, filtered by chatbot, 👎 and age', async () => {
    const { ctx, other, vote } = await seeded({ platform: 'slack' });
    await vote({ messageUuid: 'm-1', question: 'First?' }, 'U1', 'down');
    const down = await vote({ messageUuid: 'm-2' }, 'U2', 'down', 'Says 30, it is 14');
    await vote({ messageUuid: 'm-3', chatbotUuid: other.uuid, question: 'Sales q?' }, 'U3', 'up');
    // Another workspace's vote is not shown to this workspace's admin.
    await vote({ messageUuid: 'm-4', workspace: 'W2', question: 'Elsewhere?' }, 'U4', 'down');

    const all = renderText(await runAdminLine('feedback list', ctx));
    expect(all).toContain(down.id);
    expect(all).toContain('Says 30, it is 14');
    expect(all).toContain('Sales q?');
    expect(all).not.toContain('Elsewhere?');
    expect(all).toContain('3 votes: 1 👍, 2 👎.');

    const negative = renderText(await runAdminLine('feedback list --negative', ctx));
    expect(negative).not.toContain('Sales q?');
    expect(negative).toContain('2 votes: 0 👍, 2 👎.');

    const sales = renderText(await runAdminLine('feedback list --chatbot sales', ctx));
    expect(sales).toContain('Sales q?');
    expect(sales).toContain('1 vote: 1 👍, 0 👎.');

    const limited = renderText(await runAdminLine('feedback list --limit 1', ctx));
    expect(limited).toContain('Showing the newest 1');
  });

  it('on the terminal lists every workspace, each row saying where it was cast', async () => {
    const { ctx, vote } = await seeded({ platform: 'console' });
    // Two workspaces installed through OAuth and a Discord server.
    await vote({ messageUuid: 'm-1', workspace: 'TA', question: 'From A?' }, 'U1', 'down');
    await vote({ messageUuid: 'm-2', workspace: 'TB', question: 'From B?' }, 'U2', 'up');
    await vote(
      { messageUuid: 'm-3', platform: 'discord', workspace: '42', question: 'G?' },
      'U3',
      'up',
    );
    const [listed] = await runAdminLine('feedback list', ctx);
    expect(listed).toMatchObject({ kind: 'table', columns: expect.arrayContaining(['Where']) });
    const table = listed as { columns: string[]; rows: string[][] };
    const where = table.columns.indexOf('Where');
    const question = table.columns.indexOf('Question');
    // (Cast within one millisecond here: their order is not the point.)
    expect(table.rows.map((row) => [row[question], row[where]]).sort()).toEqual([
      ['From A?', 'slack:TA'],
      ['From B?', 'slack:TB'],
      ['G?', 'discord:42'],
    ]);
    // A workspace admin sees only their own: no such column.
    const scoped = await makeContext({ platform: 'slack', workspace: 'TA', state: ctx.state });
    const [own] = await runAdminLine('feedback list', scoped);
    expect(own).toMatchObject({ kind: 'table' });
    expect((own as { columns: string[] }).columns).not.toContain('Where');
  });

  it('reads --since as a length of time and names the rule when it is not one', async () => {
    let now = NOW - 10 * 86_400_000;
    const { ctx, vote } = await seeded({ platform: 'slack', now: () => new Date(NOW) });
    // Rows carry the times of the store's clock, which the test moves.
    const clocked = await (
      await import('../../src/state/index.js')
    ).openState('memory://', {
      now: () => now,
    });
    ctx.state = clocked;
    await vote({ messageUuid: 'm-1', question: 'Ten days ago?' }, 'U1', 'down');
    now = NOW - 3_600_000;
    await vote({ messageUuid: 'm-2', question: 'An hour ago?' }, 'U2', 'down');

    const week = renderText(await runAdminLine('feedback list --since 7d', ctx));
    expect(week).toContain('An hour ago?');
    expect(week).not.toContain('Ten days ago?');
    expect(renderText(await runAdminLine('feedback list --since 2w', ctx))).toContain(
      'Ten days ago?',
    );
    expect(renderText(await runAdminLine('feedback list --since 30m', ctx))).toContain('No votes');

    expect(errorsOf(await runAdminLine('feedback list --since week', ctx))).toEqual([
      '--since: must be a length of time: a whole number and m, h, d or w, like 30m, 12h, 7d, 2w (got "week")',
    ]);
    expect(errorsOf(await runAdminLine('feedback list --since 0d', ctx))).toEqual([
      '--since: must be longer than 0',
    ]);
    expect(errorsOf(await runAdminLine('feedback list --since 9999d', ctx))).toEqual([
      '--since: must be at most 3650d (ten years)',
    ]);
    await clocked.close();
  });

  it('exports CSV (RFC 4180, formula-safe) and JSONL as a file block on platforms', async () => {
    const { ctx, vote } = await seeded({ platform: 'discord' });
    ctx.workspace = 'W1';
    const row = await vote(
      {
        platform: 'discord',
        question: '=HYPERLINK("http://x") , ok?',
        answerExcerpt: 'Line one\r\nLine "two"',
      },
      'U1',
      'down',
      '@mention -minus +plus',
    );
    const csvOut = await runAdminLine('feedback export --format csv', ctx);
    expect(notices(csvOut)).toEqual([
      'ok: Exported 1 row as chatbridge-feedback-20250203-0405.csv.',
    ]);
    const file = csvOut.find((b): b is FileBlock => b.kind === 'file')!;
    expect(file.contentType).toBe('text/csv; charset=utf-8');
    const text = new TextDecoder().decode(file.bytes);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      'id,vote,reason,question,answer_excerpt,chatbot_uuid,session_uuid,message_uuid,platform,' +
        'workspace,channel,thread,user_id,answered_at,created_at,updated_at',
    );
    expect(text.startsWith(lines[0]!)).toBe(true);
    expect(text).toContain(
      `${row.id},down,'@mention -minus +plus,"'=HYPERLINK(""http://x"") , ok?","Line one\r\nLine ""two""",`,
    );
    expect(text.endsWith('\r\n')).toBe(true);

    const jsonOut = await runAdminLine('feedback export --format jsonl --negative', ctx);
    const jsonl = new TextDecoder().decode(
      jsonOut.find((b): b is FileBlock => b.kind === 'file')!.bytes,
    );
    expect(
      jsonl
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as object),
    ).toEqual([
      expect.objectContaining({
        id: row.id,
        vote: 'down',
        reason: '@mention -minus +plus',
        question: '=HYPERLINK("http://x") , ok?',
        answer_excerpt: 'Line one\r\nLine "two"',
        user_id: 'U1',
      }),
    ]);

    expect(errorsOf(await runAdminLine('feedback export --format xml', ctx))).toEqual([
      '--format: must be one of csv, jsonl',
    ]);
    expect(errorsOf(await runAdminLine('feedback export', ctx))[0]).toMatch(/--format/);
    expect(errorsOf(await runAdminLine('feedback export --format csv --out x.csv', ctx))).toEqual([
      '--out: is for the command line; here the file comes attached to the answer',
    ]);
  });

  it('writes the export to --out on the command line, and sees every workspace there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'feedback-'));
    const { ctx, vote } = await seeded({ platform: 'console', writeFile: localFileWriter(dir) });
    await vote({ messageUuid: 'm-1', workspace: 'W1' }, 'U1', 'up');
    await vote({ messageUuid: 'm-2', workspace: 'W2' }, 'U2', 'down');
    const out = await runAdminLine('feedback export --format jsonl --out exports/votes.jsonl', ctx);
    const path = join(dir, 'exports', 'votes.jsonl');
    expect(notices(out)).toEqual([`ok: Wrote 2 rows to ${path}.`]);
    expect(out.some((b) => b.kind === 'file')).toBe(false);
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { workspace: string }).workspace).sort()).toEqual([
      'W1',
      'W2',
    ]);
  });

  it('makes a Q&A source from a row: its question, the admin answer, its chatbot', async () => {
    const { ctx, bot, other, vote } = await seeded({ platform: 'slack' });
    const row = await vote(
      { chatbotUuid: other.uuid, question: 'Do you ship to Norway?' },
      'U1',
      'down',
      'It said no',
    );
    const out = await runAdminLine(`feedback add-qa ${row.id} "Yes, within 5 days."`, ctx);
    expect(errorsOf(out)).toEqual([]);
    expect(ctx.client.callsOf('addQaSource')).toEqual([
      [other.uuid, { question: 'Do you ship to Norway?', answer: 'Yes, within 5 days.' }],
    ]);
    expect((await ctx.state.sources.list(other.uuid)).map((s) => s.type)).toEqual(['qa']);
    expect(await ctx.state.sources.list(bot.uuid)).toEqual([]);
    expect(renderText(out)).toContain('It said no');

    expect(errorsOf(await runAdminLine('feedback add-qa fb-000000000000 "x"', ctx))).toEqual([
      '<id>: no feedback row "fb-000000000000" here (`feedback list` shows ids)',
    ]);
    // A row of another workspace is not reachable from this one.
    const elsewhere = await vote({ workspace: 'W2', messageUuid: 'm-9' }, 'U9', 'down');
    expect(errorsOf(await runAdminLine(`feedback add-qa ${elsewhere.id} "x"`, ctx))[0]).toMatch(
      /no feedback row/,
    );
    expect(
      notices(await runAdminLine(`feedback add-qa ${row.id} x`, { ...ctx, isAdmin: false })),
    ).toEqual([
      'error: Sorry, `feedback add-qa` is for admins only. `help` shows what everyone can use.',
    ]);
  });
});

describe('CSV fields', () => {
  it('quotes what RFC 4180 needs and defuses formulas', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    for (const lead of ['=', '+', '-', '@', '\t', '\r']) {
      expect(
        csvField(`${lead}1`).startsWith(`'${lead}`) || csvField(`${lead}1`).startsWith(`"'`),
      ).toBe(true);
    }
    expect(toCsv([] as FeedbackRecord[])).toMatch(/^id,vote,.*\r\n$/);
  });
});
