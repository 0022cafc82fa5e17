// assistant greeting / prompts / show / reset: per workspace, per channel with --channel, limits
// checked with the argument named, and a channel inheriting what it does not set.
import { describe, expect, it } from 'vitest';
import { renderText, runAdminLine } from '../../src/admin/index.js';
import {
  DEFAULT_ASSISTANT_GREETING,
  DEFAULT_ASSISTANT_PROMPTS,
} from '../../src/bridge/assistant.js';
import { errorsOf, makeContext, notices } from './context.js';

const rows = (text: string) => text.split('\n').filter((line) => /^\s*\d+\s/.test(line));

describe('assistant commands', () => {
  it('shows the defaults until something is set', async () => {
    const ctx = await makeContext({ platform: 'slack' });
    const shown = renderText(await runAdminLine('assistant show', ctx));
    expect(shown).toContain(DEFAULT_ASSISTANT_GREETING);
    expect(shown).toContain('the default');
    for (const prompt of DEFAULT_ASSISTANT_PROMPTS) expect(shown).toContain(prompt);
    expect(await ctx.state.assistantSettings.get('slack:W1')).toBeUndefined();
  });

  it('sets the workspace greeting, and a channel greeting that wins in that channel only', async () => {
    const ctx = await makeContext({ platform: 'slack' });
    expect(notices(await runAdminLine('assistant greeting "Welcome to Acme help"', ctx))).toEqual([
      'ok: New assistant threads in this workspace start with this greeting.',
    ]);
    await runAdminLine('assistant greeting "Sales desk here" --channel', ctx);
    expect(await ctx.state.assistantSettings.get('slack:W1')).toEqual({
      greeting: 'Welcome to Acme help',
    });
    expect(await ctx.state.assistantSettings.get('slack:W1:C1')).toEqual({
      greeting: 'Sales desk here',
    });
    const inChannel = renderText(await runAdminLine('assistant show --channel', ctx));
    expect(inChannel).toContain('Sales desk here');
    expect(inChannel).toMatch(/set for this channel/);
    // The channel set no prompts: they come from the workspace (the defaults here).
    expect(inChannel).toContain(DEFAULT_ASSISTANT_PROMPTS[0]);
    const other = await makeContext({ platform: 'slack', state: ctx.state, channel: 'C2' });
    expect(renderText(await runAdminLine('assistant show --channel', other))).toMatch(
      /Welcome to Acme help[\s\S]*from the workspace/,
    );
  });

  it('adds, lists and removes prompts, starting from the list in effect', async () => {
    const ctx = await makeContext({ platform: 'slack' });
    await runAdminLine('assistant prompts add "How do I reset my password?"', ctx);
    expect((await ctx.state.assistantSettings.get('slack:W1'))?.prompts).toEqual([
      ...DEFAULT_ASSISTANT_PROMPTS,
      'How do I reset my password?',
    ]);
    await runAdminLine('assistant prompts remove 1', ctx);
    const listed = rows(renderText(await runAdminLine('assistant prompts list', ctx)));
    expect(listed).toHaveLength(DEFAULT_ASSISTANT_PROMPTS.length);
    expect(listed[0]).toContain(DEFAULT_ASSISTANT_PROMPTS[1]);
    expect(listed.at(-1)).toMatch(/^\s*3\s.*reset my password/);

    // A channel's own list starts from what the channel sees (the workspace's) and then
    // stands alone: the workspace list is untouched.
    await runAdminLine('assistant prompts remove 3 --channel', ctx);
    expect((await ctx.state.assistantSettings.get('slack:W1:C1'))?.prompts).toEqual(
      DEFAULT_ASSISTANT_PROMPTS.slice(1),
    );
    expect((await ctx.state.assistantSettings.get('slack:W1'))?.prompts).toHaveLength(3);
  });

  it('refuses what Slack would refuse, naming the argument and the rule, and stores nothing', async () => {
    const ctx = await makeContext({ platform: 'slack' });
    await runAdminLine('assistant prompts add "Fourth one"', ctx);
    const before = await ctx.state.assistantSettings.get('slack:W1');
    expect(errorsOf(await runAdminLine('assistant prompts add "Fifth"', ctx))).toEqual([
      '<prompt>: Slack shows at most 4 suggested prompts; remove one first (`assistant prompts remove <number>`)',
    ]);
    expect(errorsOf(await runAdminLine('assistant prompts add "fourth ONE"', ctx))).toEqual([
      '<prompt>: is already prompt 4',
    ]);
    expect(errorsOf(await runAdminLine(`assistant prompts add "${'x'.repeat(151)}"`, ctx))).toEqual(
      ['<prompt>: must be at most 150 characters (got 151)'],
    );
    expect(errorsOf(await runAdminLine('assistant prompts remove 9', ctx))).toEqual([
      '<prompt>: must be the number of a prompt in `assistant prompts list`, 1 to 4 (got "9")',
    ]);
    expect(errorsOf(await runAdminLine('assistant prompts remove two', ctx))).toHaveLength(1);
    expect(errorsOf(await runAdminLine('assistant prompts add', ctx))).toEqual([
      '<prompt>: is required: the prompt to add',
    ]);
    expect(errorsOf(await runAdminLine('assistant prompts shuffle', ctx))).toEqual([
      '<action>: must be one of add, list, remove',
    ]);
    expect(errorsOf(await runAdminLine(`assistant greeting "${'y'.repeat(2001)}"`, ctx))).toEqual([
      '<text>: must be at most 2000 characters (got 2001)',
    ]);
    expect(errorsOf(await runAdminLine('assistant greeting "   "', ctx))).toEqual([
      '<text>: must not be empty',
    ]);
    const noChannel = await makeContext({
      platform: 'slack',
      state: ctx.state,
      channel: undefined,
    });
    expect(errorsOf(await runAdminLine('assistant greeting "Hi" --channel', noChannel))).toEqual([
      '--channel: needs a channel: run the command in the channel it is for',
    ]);
    expect(await ctx.state.assistantSettings.get('slack:W1')).toEqual(before);
  });

  it('removing every prompt leaves none; reset brings back what is inherited', async () => {
    const ctx = await makeContext({ platform: 'slack' });
    for (let i = 0; i < DEFAULT_ASSISTANT_PROMPTS.length; i++) {
      await runAdminLine('assistant prompts remove 1 --channel', ctx);
    }
    expect(renderText(await runAdminLine('assistant prompts list --channel', ctx))).toContain(
      'No prompts are suggested in this channel.',
    );
    expect(notices(await runAdminLine('assistant reset --channel', ctx))).toEqual([
      "ok: The assistant pane in this channel uses the workspace's, else the defaults again.",
    ]);
    expect(await ctx.state.assistantSettings.get('slack:W1:C1')).toBeUndefined();
    expect(
      rows(renderText(await runAdminLine('assistant prompts list --channel', ctx))),
    ).toHaveLength(DEFAULT_ASSISTANT_PROMPTS.length);
  });

  it('is for admins only', async () => {
    const ctx = await makeContext({ platform: 'slack', isAdmin: false });
    expect(errorsOf(await runAdminLine('assistant greeting "Hi"', ctx))).toHaveLength(1);
    expect(await ctx.state.assistantSettings.get('slack:W1')).toBeUndefined();
  });

  it('is refused on Discord and the terminal, where no assistant pane reads it', async () => {
    for (const platform of ['discord', 'console']) {
      const ctx = await makeContext({ platform });
      for (const line of ['assistant greeting "Hi"', 'assistant show', 'assistant reset']) {
        expect(errorsOf(await runAdminLine(line, ctx)), `${line} on ${platform}`).toEqual([
          `\`${line.split(' ').slice(0, 2).join(' ')}\` is for Slack only and changes nothing ` +
            `here: run \`/chatbridge ${line.split(' ').slice(0, 2).join(' ')} …\` in the Slack ` +
            'workspace it is for.',
        ]);
      }
      expect(await ctx.state.assistantSettings.get(`${platform}:W1`)).toBeUndefined();
      // help does not offer it there either, and says where it is.
      expect(renderText(await runAdminLine('help', ctx))).not.toContain('assistant greeting');
      expect(errorsOf(await runAdminLine('help assistant', ctx))).toEqual([
        'The assistant commands are for Slack only: run them there.',
      ]);
    }
  });
});
