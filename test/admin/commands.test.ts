// Each command's effect on the service (fake client) and the state store.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localFileReader, runAdminCommand, runAdminLine } from '../../src/admin/index.js';
import { createConversation } from '../../src/bridge/engine.js';
import { ServiceError } from '../../src/service/errors.js';
import { FakeClient as EngineClient } from '../bridge/helpers/fake-client.js';
import { FakeClock } from '../bridge/helpers/fake-clock.js';
import { RecordingTarget } from '../bridge/helpers/recording-target.js';
import { errorsOf, makeContext, notices } from './context.js';

async function bound() {
  const ctx = await makeContext();
  const bot = ctx.client.addChatbot('Support');
  await ctx.state.bindings.set('test:W1:C1', bot.uuid);
  return { ctx, bot };
}

describe('chatbot', () => {
  it('create sends every option, converted', async () => {
    const ctx = await makeContext();
    const out = await runAdminLine(
      'chatbot create "Support bot" --visibility PUBLIC --rate-limit 20/240 ' +
        '--rate-limit-message "Slow down" --citations off',
      ctx,
    );
    expect(errorsOf(out)).toEqual([]);
    expect(ctx.client.callsOf('createChatbot')[0]?.[0]).toEqual({
      name: 'Support bot',
      visibility: 'public',
      rate_limit: [20, 240],
      rate_limit_message: 'Slow down',
      show_citations: false,
    });
    expect(out[1]).toMatchObject({
      kind: 'fields',
      fields: expect.arrayContaining([['Rate limit', '20/240 s']]),
    });
  });

  it('use binds this channel, default binds the workspace, list shows both', async () => {
    const ctx = await makeContext();
    const a = ctx.client.addChatbot('Alpha');
    const b = ctx.client.addChatbot('Beta');
    expect(notices(await runAdminLine('chatbot use alpha', ctx))).toEqual([
      'ok: "Alpha" now answers in this channel.',
    ]);
    await runAdminLine(`chatbot default ${b.uuid}`, ctx);
    expect(await ctx.state.bindings.get('test:W1:C1')).toBe(a.uuid);
    expect(await ctx.state.bindings.get('test:W1')).toBe(b.uuid);
    const [table] = await runAdminLine('chatbot list', ctx);
    expect(table).toMatchObject({
      kind: 'table',
      columns: ['Name', 'UUID', 'Visibility', 'Rate limit', 'Citations', 'Bound'],
    });
    const rows = table?.kind === 'table' ? table.rows : [];
    expect(rows.map((r) => [r[0], r[5]])).toEqual([
      ['Alpha', 'this channel'],
      ['Beta', 'workspace default'],
    ]);
  });

  it('use outside a channel is refused, naming the alternative', async () => {
    const ctx = await makeContext({ channel: undefined });
    ctx.client.addChatbot('Alpha');
    expect(errorsOf(await runAdminLine('chatbot use Alpha', ctx))[0]).toMatch(/chatbot default/);
  });

  it('the current chatbot: --chatbot, else channel, else workspace, else an explanation', async () => {
    const ctx = await makeContext();
    const a = ctx.client.addChatbot('Alpha');
    const b = ctx.client.addChatbot('Beta');
    expect(errorsOf(await runAdminLine('agent list', ctx))[0]).toMatch(
      /No chatbot is bound here.*chatbot use/,
    );
    await ctx.state.bindings.set('test:W1', b.uuid);
    await runAdminLine('agent list', ctx);
    await ctx.state.bindings.set('test:W1:C1', a.uuid);
    await runAdminLine('agent list', ctx);
    await runAdminLine('agent list --chatbot beta', ctx);
    expect(ctx.client.callsOf('listAgents').map((c) => c[0])).toEqual([b.uuid, a.uuid, b.uuid]);
    const [shown] = await runAdminLine('chatbot show', ctx);
    expect(shown).toMatchObject({ kind: 'fields', title: 'Chatbot Alpha (bound to this channel)' });
  });
  it('falls back to the default chatbot (CHATBRIDGE_CHATBOT or the demo) where nothing is bound', async () => {
    const ctx = await makeContext();
    const demo = ctx.client.addChatbot('chatbridge demo');
    const other = ctx.client.addChatbot('Other');
    ctx.defaultChatbot = 'chatbridge demo';
    await runAdminLine('agent list', ctx);
    const [shown] = await runAdminLine('chatbot show', ctx);
    expect(shown).toMatchObject({
      kind: 'fields',
      title: 'Chatbot chatbridge demo (answers where nothing is bound)',
    });
    // A binding still wins over the default.
    await ctx.state.bindings.set('test:W1', other.uuid);
    await runAdminLine('agent list', ctx);
    expect(ctx.client.callsOf('listAgents').map((c) => c[0])).toEqual([demo.uuid, other.uuid]);
  });

  it('a default chatbot the service no longer has is named in the refusal', async () => {
    const ctx = await makeContext();
    ctx.defaultChatbot = 'Gone bot';
    expect(errorsOf(await runAdminLine('agent list', ctx))[0]).toMatch(/Gone bot/);
  });
});

describe('agent', () => {
  it('create puts temperature and model on top and the rest in meta', async () => {
    const { ctx, bot } = await bound();
    const out = await runAdminLine(
      'agent create Helper --type pre-canned --description "Says hi" --prompt "Be brief" ' +
        '--model gpt-4o-mini-4k --temperature 0.2 --bias 0.5 --stickness 0.1 ' +
        '--default-message "Hello!" --use-all-sources on',
      ctx,
    );
    expect(errorsOf(out)).toEqual([]);
    expect(ctx.client.callsOf('createAgent')[0]).toEqual([
      bot.uuid,
      {
        name: 'Helper',
        type: 'pre-canned',
        description: 'Says hi',
        prompt: 'Be brief',
        model: 'gpt-4o-mini-4k',
        temperature: 0.2,
        meta: { bias: 0.5, stickness: 0.1, default_message: 'Hello!', use_all_sources: true },
      },
    ]);
  });

  it('update by name: enable, variables in both forms, sources by title', async () => {
    const { ctx } = await bound();
    const agent = ctx.client.agents.get(ctx.client.chatbots[0]!.uuid)![0]!;
    await runAdminLine('source add-qa "What is it?" "A bridge."', ctx);
    const source = [...ctx.client.sources.values()][0]!;
    const out = await runAdminLine(
      'agent update "general q&a" --enable --name Main --variables "team=Ops,tone=dry" --sources "what is it?"',
      ctx,
    );
    expect(errorsOf(out)).toEqual([]);
    const [uuid, input] = ctx.client.callsOf('updateAgent')[0]!;
    expect(uuid).toBe(agent.uuid);
    expect(input).toEqual({
      name: 'Main',
      enabled: true,
      data_source_uuids: [source.uuid],
      variables: [
        {
          name: 'team',
          description: '',
          example: '',
          type: 'string',
          default_value: { content: 'Ops', static: 0 },
        },
        {
          name: 'tone',
          description: '',
          example: '',
          type: 'string',
          default_value: { content: 'dry', static: 0 },
        },
      ],
    });
    await runAdminLine(`agent update Main --disable --variables '{"lang":"en"}' --bias 0`, ctx);
    expect(ctx.client.callsOf('updateAgent')[1]?.[1]).toEqual({
      enabled: false,
      meta: { bias: 0 },
      variables: [
        {
          name: 'lang',
          description: '',
          example: '',
          type: 'string',
          default_value: { content: 'en', static: 0 },
        },
      ],
    });
  });

  it('update refuses nothing-to-change and --enable with --disable', async () => {
    const { ctx } = await bound();
    expect(errorsOf(await runAdminLine('agent update "General Q&A"', ctx))[0]).toMatch(
      /^nothing to change: give at least one of --name/,
    );
    expect(
      errorsOf(await runAdminLine('agent update "General Q&A" --enable --disable', ctx))[0],
    ).toBe('--enable/--disable: give only one of them');
    expect(ctx.client.callsOf('updateAgent')).toHaveLength(0);
  });

  it('list shows each agent', async () => {
    const { ctx } = await bound();
    const [table] = await runAdminLine('agent list', ctx);
    expect(table).toMatchObject({
      kind: 'table',
      rows: [['General Q&A', 'user-facing', 'on', '', expect.any(String)]],
    });
  });
});

describe('source', () => {
  it('a file named by path is read only within the upload limit', async () => {
    const { ctx } = await bound();
    const folder = await mkdtemp(join(tmpdir(), 'chatbridge-admin-'));
    try {
      await writeFile(join(folder, 'small.md'), '# Small');
      await writeFile(join(folder, 'big.md'), '# Far too big for the limit');
      ctx.readFile = localFileReader(10);
      expect(
        errorsOf(await runAdminLine(`source upload ${join(folder, 'small.md')}`, ctx)),
      ).toEqual([]);
      expect(ctx.client.callsOf('uploadSource')[0]?.[1]).toMatchObject({ file_name: 'small.md' });
      const [refusal] = errorsOf(
        await runAdminLine(`source upload ${join(folder, 'big.md')}`, ctx),
      );
      expect(refusal).toMatch(
        /must be at most 10 bytes \(CHATBRIDGE_MAX_UPLOAD_BYTES\); "big\.md" has 27/,
      );
      expect(ctx.client.callsOf('uploadSource')).toHaveLength(1);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('add-qa, add-url and upload are recorded in the registry', async () => {
    const { ctx, bot } = await bound();
    ctx.file = {
      name: 'guide.md',
      bytes: new TextEncoder().encode('# Guide'),
      link: 'https://chat.example/m/1',
    };
    expect(errorsOf(await runAdminLine('source add-qa "What is it?" "A bridge."', ctx))).toEqual(
      [],
    );
    expect(errorsOf(await runAdminLine('source add-url https://example.com/docs', ctx))).toEqual(
      [],
    );
    expect(errorsOf(await runAdminLine('source upload', ctx))).toEqual([]);
    const upload = ctx.client.callsOf('uploadSource')[0]!;
    expect(upload[1]).toMatchObject({
      file_name: 'guide.md',
      reference_source_link: 'https://chat.example/m/1',
    });
    const records = await ctx.state.sources.list(bot.uuid);
    expect(records.map((r) => [r.title, r.type, r.link, r.createdAt])).toEqual([
      ['What is it?', 'qa', undefined, '2025-02-03T04:05:06.000Z'],
      ['https://example.com/docs', 'url', 'https://example.com/docs', '2025-02-03T04:05:06.000Z'],
      ['guide.md', 'upload', 'https://chat.example/m/1', '2025-02-03T04:05:06.000Z'],
    ]);
    const [table] = await runAdminLine('source list', ctx);
    expect(table?.kind === 'table' && table.rows.map((r) => r[0])).toEqual([
      'What is it?',
      'https://example.com/docs',
      'guide.md',
    ]);
  });

  it('upload on the CLI reads the path and can set a title', async () => {
    const { ctx, bot } = await bound();
    const paths: string[] = [];
    ctx.readFile = async (path) => {
      paths.push(path);
      return { name: 'notes.txt', bytes: new Uint8Array([104, 105]) };
    };
    const out = await runAdminLine('source upload ./docs/notes.txt --title "Team notes"', ctx);
    expect(errorsOf(out)).toEqual([]);
    expect(paths).toEqual(['./docs/notes.txt']);
    expect((await ctx.state.sources.list(bot.uuid))[0]?.title).toBe('Team notes');
  });

  it('a duplicate URL (409 with the existing source) is recorded, not an error', async () => {
    const { ctx, bot } = await bound();
    await runAdminLine('source add-url https://example.com/a', ctx);
    const out = await runAdminLine('source add-url https://example.com/a', ctx);
    expect(notices(out)[0]).toMatch(/^info: This chatbot already has that data source/);
    expect(await ctx.state.sources.list(bot.uuid)).toHaveLength(1);
  });

  it('rename by title updates the service and the registry; an unknown uuid is passed on', async () => {
    const { ctx, bot } = await bound();
    await runAdminLine('source add-qa Q A', ctx);
    const out = await runAdminLine('source rename q "Better title"', ctx);
    expect(notices(out)).toEqual(['ok: Renamed "Q" to "Better title".']);
    expect((await ctx.state.sources.list(bot.uuid))[0]?.title).toBe('Better title');
    const outside = [...ctx.client.sources.values()][0]!;
    ctx.client.sources.set('f'.repeat(32), { ...outside, uuid: 'f'.repeat(32) });
    expect(errorsOf(await runAdminLine(`source rename ${'f'.repeat(32)} Other`, ctx))).toEqual([]);
    expect(await ctx.state.sources.get('f'.repeat(32))).toMatchObject({
      title: 'Other',
      chatbotUuid: bot.uuid,
    });
  });
});

describe('tag', () => {
  it('create, update (replace, add, remove) and list members by title', async () => {
    const { ctx, bot } = await bound();
    await runAdminLine('source add-qa One 1', ctx);
    await runAdminLine('source add-qa Two 2', ctx);
    const [one, two] = await ctx.state.sources.list(bot.uuid);
    expect(
      errorsOf(await runAdminLine('tag create Docs --color #1A2b3c --sources one', ctx)),
    ).toEqual([]);
    expect(ctx.client.callsOf('createSourceTag')[0]).toEqual([
      bot.uuid,
      { name: 'Docs', color: '#1A2b3c', data_source_uuids: [one!.uuid] },
    ]);
    await runAdminLine('tag update docs --add-sources Two,One --name Manuals', ctx);
    expect(ctx.client.callsOf('updateSourceTag')[0]?.[1]).toEqual({
      name: 'Manuals',
      data_source_uuids: [one!.uuid, two!.uuid],
    });
    await runAdminLine('tag update manuals --remove-sources one --color #000000', ctx);
    expect(ctx.client.callsOf('updateSourceTag')[1]?.[1]).toEqual({
      color: '#000000',
      data_source_uuids: [two!.uuid],
    });
    const [table] = await runAdminLine('tag list', ctx);
    expect(table).toMatchObject({
      kind: 'table',
      rows: [['Manuals', '#000000', 'Two', expect.any(String)]],
    });
  });

  it('members outside the registry are listed by uuid', async () => {
    const { ctx, bot } = await bound();
    const outside = 'a'.repeat(32);
    await runAdminLine(`tag create Misc --color #ffffff --sources ${outside}`, ctx);
    const [table] = await runAdminLine(`tag list --chatbot ${bot.uuid}`, ctx);
    expect(table?.kind === 'table' && table.rows[0]?.[2]).toBe(outside);
  });
});

describe('session reset', () => {
  it("ends this thread's session only, keeps the thread known, says when there was nothing", async () => {
    const ctx = await makeContext({ isAdmin: false });
    const ref = { sessionUuid: 's1', chatbotUuid: 'b1', createdAt: '2025-01-01T00:00:00Z' };
    await ctx.state.sessions.set('test:W1:C1:T1', ref);
    await ctx.state.sessions.set('test:W1:C1:T2', ref);
    expect(notices(await runAdminLine('session reset', ctx))[0]).toMatch(/^ok: /);
    // Kept, without a session: the bot still answers here, with a new conversation.
    expect(await ctx.state.sessions.get('test:W1:C1:T1')).toMatchObject({
      sessionUuid: '',
      chatbotUuid: 'b1',
      resetAt: expect.any(String),
    });
    expect(await ctx.state.sessions.get('test:W1:C1:T2')).toEqual(ref);
    expect(notices(await runAdminLine('session reset', ctx))[0]).toMatch(/^info: Already reset/);
    const fresh = await makeContext({ isAdmin: false, thread: 'T3' });
    expect(notices(await runAdminLine('session reset', fresh))[0]).toMatch(
      /^info: .*nothing to reset/,
    );
    expect(await fresh.state.sessions.get('test:W1:C1:T3')).toBeUndefined();
  });

  it('after a reset the engine keeps answering the thread, in a new session', async () => {
    const ctx = await makeContext({ isAdmin: false });
    const service = new EngineClient();
    const clock = new FakeClock();
    const conversation = createConversation({
      client: service,
      state: ctx.state,
      now: clock.now,
      setTimer: clock.setTimer,
      clearTimer: clock.clearTimer,
    });
    const thread = { platform: 'test', workspace: 'W1', channel: 'C1', thread: 'T1' };
    await ctx.state.bindings.set('test:W1', 'bot-1');
    const ask = (text: string) =>
      conversation.handle(
        { ...thread, messageId: text, userId: 'U1', userName: 'ada', text },
        new RecordingTarget({ maxChars: 2000, minUpdateMs: 1000 }, clock),
      );
    await ask('a');
    expect(notices(await runAdminLine('session reset', ctx))[0]).toMatch(/^ok: /);
    expect(await conversation.hasSession(thread)).toBe(true);
    await ask('b');
    await ask('c');
    const [s1, s2, s3] = service.streamCalls.map((call) => call.sessionUuid);
    expect(s2).not.toBe(s1);
    expect(s3).toBe(s2);
    expect(service.sessions.size).toBe(2);
    expect((await ctx.state.sessions.get('test:W1:C1:T1'))?.sessionUuid).toBe(s2);
  });
});

describe('permissions and failures', () => {
  it('refuses admin commands to others politely, without calling the service', async () => {
    const ctx = await makeContext({ isAdmin: false });
    const out = await runAdminLine('chatbot create Bot', ctx);
    expect(errorsOf(out)).toEqual([
      'Sorry, `chatbot create` is for admins only. `help` shows what everyone can use.',
    ]);
    expect(errorsOf(await runAdminCommand('tag', 'list', {}, ctx))[0]).toMatch(/for admins only/);
    expect(ctx.client.calls).toHaveLength(0);
    expect(errorsOf(await runAdminLine('help', ctx))).toEqual([]);
  });

  it('service failures become notices, never exceptions', async () => {
    const { ctx } = await bound();
    ctx.client.failNext = new ServiceError(
      'unavailable',
      'HTTP 503 from POST /api/v1/chatbot/create',
      { status: 503 },
    );
    expect(errorsOf(await runAdminLine('chatbot create Bot', ctx))).toEqual([
      'The chatbot service is unavailable right now: HTTP 503 from POST /api/v1/chatbot/create',
    ]);
    ctx.client.failNext = new ServiceError('validation', 'rate_limit: bad', {
      field: 'rate_limit[0]',
      rule: 'too big',
    });
    expect(errorsOf(await runAdminLine('chatbot create Bot', ctx))).toEqual([
      'The service refused --rate-limit: too big',
    ]);
    ctx.client.failNext = new ServiceError('auth', 'HTTP 401', { status: 401 });
    expect(errorsOf(await runAdminLine('chatbot list', ctx))[0]).toMatch(/API key/);
  });
});
