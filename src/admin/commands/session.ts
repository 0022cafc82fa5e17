// session reset: ends this thread's session, so the next message starts a new conversation; the
// thread stays known, so the bot keeps answering there without a mention.
import { threadKey } from '../../bridge/types.js';
import { AdminRefusal } from '../errors.js';
import type { AdminCommand } from '../types.js';
import { info, ok } from './shared.js';

const reset: AdminCommand = {
  noun: 'session',
  verb: 'reset',
  summary: 'Start a new conversation in this thread (the chatbot forgets it)',
  // Only touches the thread it is typed in, and DM users need it too.
  permission: 'anyone',
  args: [],
  async run(ctx) {
    if (ctx.channel === undefined || ctx.thread === undefined) {
      throw new AdminRefusal('`session reset` works inside a conversation thread; type it there.');
    }
    const key = threadKey({
      platform: ctx.platform,
      workspace: ctx.workspace,
      channel: ctx.channel,
      thread: ctx.thread,
    });
    // In the thread's queue, like the engine's reset: messages sent before it are answered first.
    return ctx.state.locks.run(key, async () => {
      const existing = await ctx.state.sessions.get(key);
      if (!existing) return [info('This thread has no conversation yet; nothing to reset.')];
      if (existing.sessionUuid === '') {
        return [info('Already reset: the next message here starts a new conversation.')];
      }
      // reset, not delete: the thread stays known, so the bot still answers follow-ups here.
      await ctx.state.sessions.reset(key);
      return [ok('Done: the next message here starts a new conversation.')];
    });
  },
};

export const sessionCommands: AdminCommand[] = [reset];
