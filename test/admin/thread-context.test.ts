// thread-context on / off / show: a per-workspace setting in the store, bounds checked and kept.
import { describe, expect, it } from 'vitest';
import { renderText, runAdminLine } from '../../src/admin/index.js';
import { errorsOf, makeContext, notices } from './context.js';

describe('thread-context commands', () => {
  it('turns thread context off and on for the workspace, keeping bounds set before', async () => {
    const ctx = await makeContext();
    expect(renderText(await runAdminLine('thread-context show', ctx))).toMatch(
      /State\W+on[\s\S]*up to 20[\s\S]*up to 4,000/,
    );
    expect(notices(await runAdminLine('thread-context on --messages 5 --chars 900', ctx))).toEqual([
      'ok: Thread context is on in this workspace.',
    ]);
    expect(await ctx.state.threadContext.get('test:W1')).toEqual({
      enabled: true,
      maxMessages: 5,
      maxChars: 900,
    });
    await runAdminLine('thread-context off', ctx);
    expect(await ctx.state.threadContext.get('test:W1')).toEqual({
      enabled: false,
      maxMessages: 5,
      maxChars: 900,
    });
    expect(renderText(await runAdminLine('thread-context show', ctx))).toMatch(/State\W+off/);
    await runAdminLine('thread-context on --chars 1200', ctx);
    expect(await ctx.state.threadContext.get('test:W1')).toEqual({
      enabled: true,
      maxMessages: 5,
      maxChars: 1200,
    });
    // Another workspace of the same store is untouched.
    expect(await ctx.state.threadContext.get('test:W2')).toBeUndefined();
  });

  it('names the bound and its rule when a value is out of range, and stores nothing', async () => {
    const ctx = await makeContext();
    expect(errorsOf(await runAdminLine('thread-context on --messages 0', ctx))).toEqual([
      '--messages: must be a number from 1 to 100',
    ]);
    expect(errorsOf(await runAdminLine('thread-context on --chars 50000', ctx))).toEqual([
      '--chars: must be a number from 200 to 20000',
    ]);
    expect(errorsOf(await runAdminLine('thread-context on --messages 2.5', ctx))).toEqual([
      '--messages: must be a whole number (got 2.5)',
    ]);
    expect(await ctx.state.threadContext.get('test:W1')).toBeUndefined();
  });

  it('is for admins only', async () => {
    const ctx = await makeContext({ isAdmin: false });
    expect(errorsOf(await runAdminLine('thread-context off', ctx))).toHaveLength(1);
    expect(await ctx.state.threadContext.get('test:W1')).toBeUndefined();
  });
});
