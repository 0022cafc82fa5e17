// The table's shape (Slack and Discord build slash commands from it), help, renderText, suggest.
import { describe, expect, it } from 'vitest';
import {
  adminCommands,
  findCommand,
  hasError,
  renderText,
  runAdminCommand,
  runAdminLine,
  suggest,
  type AdminOutput,
} from '../../src/admin/index.js';
import { ServiceError } from '../../src/service/errors.js';
import { makeContext } from './context.js';

describe('the command table', () => {
  it('has the required commands', () => {
    const names = adminCommands.map((c) => `${c.noun} ${c.verb}`.trim());
    for (const name of [
      'chatbot create',
      'chatbot list',
      'chatbot use',
      'chatbot default',
      'agent list',
      'agent create',
      'agent update',
      'source add-qa',
      'source add-url',
      'source upload',
      'source rename',
      'source list',
      'tag create',
      'tag update',
      'tag list',
      'session reset',
      'help',
    ]) {
      expect(names).toContain(name);
    }
    expect(findCommand('CHATBOT', 'Create')?.verb).toBe('create');
  });

  it('fits Discord: names, description lengths, option counts, required options first', () => {
    for (const command of adminCommands) {
      const where = `${command.noun} ${command.verb}`;
      expect(command.summary.length, where).toBeLessThanOrEqual(100);
      expect(command.args.length, where).toBeLessThanOrEqual(25);
      const firstOptional = command.args.findIndex((a) => !a.required);
      if (firstOptional >= 0) {
        expect(
          command.args.slice(firstOptional).every((a) => !a.required),
          where,
        ).toBe(true);
      }
      for (const arg of command.args) {
        expect(arg.name, where).toMatch(/^[-a-z0-9]{1,32}$/);
        expect(arg.help.length, `${where} ${arg.name}`).toBeLessThanOrEqual(100);
        if (arg.kind === 'enum')
          expect(arg.choices?.length, `${where} ${arg.name}`).toBeGreaterThan(0);
      }
      expect(new Set(command.args.map((a) => a.name)).size, where).toBe(command.args.length);
    }
  });

  it('only help and session reset are for anyone', () => {
    expect(adminCommands.filter((c) => c.permission === 'anyone').map((c) => c.noun)).toEqual([
      'session',
      'help',
    ]);
  });
});

describe('help', () => {
  it('lists every command for everyone and explains one group in detail', async () => {
    // On Slack, where every command (the assistant pane's too) means something.
    const ctx = await makeContext({ platform: 'slack', isAdmin: false });
    const all = renderText(await runAdminLine('help', ctx));
    for (const c of adminCommands) expect(all).toContain(`${c.noun} ${c.verb}`.trim());
    expect(all).toContain('Only admins may run');
    const tag = renderText(await runAdminLine('help tag', ctx));
    expect(tag).toContain('tag update <tag> [--name TEXT] [--color #rrggbb]');
    expect(tag).toMatch(/--remove-sources\s+Take these data sources out of it \[optional\]/);
    expect(tag).not.toContain('chatbot create');
    expect(renderText(await runAdminCommand('help', '', { topic: 'source' }, ctx))).toContain(
      'source upload <file>',
    );
  });

  it('an empty line, --help and a command with --help give help', async () => {
    const ctx = await makeContext();
    expect(renderText(await runAdminLine('', ctx))).toContain('chatbot create <name> [options]');
    expect(renderText(await runAdminLine('/--help', ctx))).toContain('session reset');
    const one = renderText(await runAdminLine('chatbot create --help', ctx));
    expect(one).toMatch(/^chatbot create <name> \[--visibility private\|public\|hybrid\]/);
    expect(one).toContain('--rate-limit          Messages per seconds, N/S');
    expect(ctx.client.calls).toHaveLength(0);
  });

  it('an unknown topic is named', async () => {
    const ctx = await makeContext();
    const out = await runAdminLine('help bananas', ctx);
    expect(hasError(out)).toBe(true);
    expect(renderText(out)).toContain(
      '<topic>: must be one of chatbot, agent, source, tag, session',
    );
  });
});

describe('renderText', () => {
  it('renders tables aligned, fields labelled, notices marked, blocks apart', () => {
    const output: AdminOutput[] = [
      { kind: 'notice', tone: 'ok', text: 'Done.' },
      {
        kind: 'table',
        title: 'Things',
        columns: ['Name', 'N'],
        rows: [
          ['alpha', '1'],
          ['b', 'two\nlines'],
        ],
      },
      {
        kind: 'fields',
        title: 'One',
        fields: [
          ['Name', 'alpha'],
          ['Description', 'a\nb'],
        ],
      },
      { kind: 'notice', tone: 'error', text: 'Bad.' },
      { kind: 'notice', tone: 'info', text: 'FYI.' },
      { kind: 'text', text: 'raw  text' },
    ];
    expect(renderText(output)).toBe(
      [
        '✓ Done.',
        '',
        'Things (2)',
        'Name   N',
        '-----  ---------',
        'alpha  1',
        'b      two lines',
        '',
        'One',
        'Name:         alpha',
        'Description:  a',
        '              b',
        '',
        '✗ Bad.',
        '',
        'ℹ FYI.',
        '',
        'raw  text',
      ].join('\n'),
    );
    expect(hasError(output)).toBe(true);
    expect(hasError(output.slice(0, 3))).toBe(false);
  });

  it('cuts very long cells', () => {
    const text = renderText([{ kind: 'table', columns: ['A'], rows: [['x'.repeat(100)]] }]);
    expect(text.split('\n')[2]).toBe(`${'x'.repeat(59)}…`);
  });
});

describe('suggest', () => {
  it('completes chatbots by prefix, then substring, values are uuids', async () => {
    const ctx = await makeContext();
    const support = ctx.client.addChatbot('Support');
    const sales = ctx.client.addChatbot('Sales');
    const ops = ctx.client.addChatbot('Ops support');
    expect(await suggest('chatbot', 'su', ctx)).toEqual([
      { name: 'Support', value: support.uuid },
      { name: 'Ops support', value: ops.uuid },
    ]);
    expect((await suggest('chatbot', '', ctx)).map((s) => s.value)).toEqual([
      support.uuid,
      sales.uuid,
      ops.uuid,
    ]);
  });

  it('tells twins apart, and caps at 25', async () => {
    const ctx = await makeContext();
    for (let i = 0; i < 30; i += 1) ctx.client.addChatbot(i < 2 ? 'Twin' : `Bot ${i}`);
    const twins = await suggest('chatbot', 'twin', ctx);
    expect(twins.map((t) => t.name)).toEqual([
      `Twin (${twins[0]!.value.slice(0, 8)})`,
      `Twin (${twins[1]!.value.slice(0, 8)})`,
    ]);
    expect(await suggest('chatbot', '', ctx)).toHaveLength(25);
  });

  it('completes agents, tags and sources of the current chatbot', async () => {
    const ctx = await makeContext();
    const bot = ctx.client.addChatbot('Support');
    await ctx.state.bindings.set('test:W1', bot.uuid);
    await runAdminLine('source add-qa "Pricing page" "It is free"', ctx);
    await runAdminLine('tag create Pricing --color #123456', ctx);
    expect((await suggest('agent', 'gen', ctx)).map((s) => s.name)).toEqual(['General Q&A']);
    expect((await suggest('source', 'pri', ctx)).map((s) => s.name)).toEqual(['Pricing page']);
    expect((await suggest('tag', 'PRI', ctx)).map((s) => s.name)).toEqual(['Pricing']);
    const other = ctx.client.addChatbot('Other');
    expect(await suggest('agent', '', ctx, { chatbot: other.uuid })).toHaveLength(1);
  });

  it('gives nothing, not an error, when no chatbot is bound or the service fails', async () => {
    const ctx = await makeContext();
    expect(await suggest('agent', '', ctx)).toEqual([]);
    ctx.client.addChatbot('Support');
    ctx.client.failNext = new ServiceError('unavailable', 'HTTP 503');
    expect(await suggest('chatbot', '', ctx)).toEqual([]);
    expect(await suggest('chatbot', '', ctx)).toHaveLength(1);
  });
});
