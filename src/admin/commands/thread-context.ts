// thread-context on / off / show: whether the first question asked of the bot in a thread people
// started goes to the chatbot with the thread's earlier messages, and how many, per workspace.
import { DEFAULT_THREAD_CONTEXT_BOUNDS, THREAD_CONTEXT_LIMITS } from '../../bridge/types.js';
import type { ThreadContextSetting } from '../../state/types.js';
import { AdminInputError } from '../errors.js';
import { workspacePlace } from '../resolve.js';
import type { AdminArgs, AdminCommand, AdminContext, AdminOutput } from '../types.js';
import { fields, flag, ok } from './shared.js';

const { messages: MESSAGES, chars: CHARS } = THREAD_CONTEXT_LIMITS;

function wholeNumber(args: AdminArgs, name: string, command: AdminCommand): number | undefined {
  const value = args[name] as number | undefined;
  if (value !== undefined && !Number.isInteger(value)) {
    throw new AdminInputError(`--${name}`, `must be a whole number (got ${value})`, command);
  }
  return value;
}

function settingFields(setting: ThreadContextSetting | undefined): AdminOutput {
  const maxMessages = setting?.maxMessages ?? DEFAULT_THREAD_CONTEXT_BOUNDS.maxMessages;
  const maxChars = setting?.maxChars ?? DEFAULT_THREAD_CONTEXT_BOUNDS.maxChars;
  return fields('Thread context in this workspace', [
    ['State', setting?.enabled === false ? 'off' : 'on'],
    ['Earlier messages', `up to ${maxMessages}`],
    ['Characters', `up to ${maxChars.toLocaleString('en-US')}`],
  ]);
}

async function current(ctx: AdminContext): Promise<ThreadContextSetting | undefined> {
  return ctx.state.threadContext.get(workspacePlace(ctx));
}

const on: AdminCommand = {
  noun: 'thread-context',
  verb: 'on',
  summary: "Send a thread's earlier messages with the first question asked of the bot there",
  permission: 'admin',
  args: [
    flag(
      'messages',
      'number',
      `Most earlier messages sent, the newest, ${MESSAGES.min}-${MESSAGES.max} (default ${DEFAULT_THREAD_CONTEXT_BOUNDS.maxMessages})`,
      MESSAGES,
    ),
    flag(
      'chars',
      'number',
      `Most characters of them together, ${CHARS.min}-${CHARS.max} (default ${DEFAULT_THREAD_CONTEXT_BOUNDS.maxChars})`,
      CHARS,
    ),
  ],
  async run(ctx, args) {
    const maxMessages = wholeNumber(args, 'messages', on);
    const maxChars = wholeNumber(args, 'chars', on);
    // Bounds not given keep what was set before.
    const before = await current(ctx);
    const messages = maxMessages ?? before?.maxMessages;
    const chars = maxChars ?? before?.maxChars;
    const setting: ThreadContextSetting = {
      enabled: true,
      ...(messages === undefined ? {} : { maxMessages: messages }),
      ...(chars === undefined ? {} : { maxChars: chars }),
    };
    await ctx.state.threadContext.set(workspacePlace(ctx), setting);
    return [ok('Thread context is on in this workspace.'), settingFields(setting)];
  },
};

const off: AdminCommand = {
  noun: 'thread-context',
  verb: 'off',
  summary: 'Send questions alone, without the earlier messages of their thread',
  permission: 'admin',
  args: [],
  async run(ctx) {
    const before = await current(ctx);
    await ctx.state.threadContext.set(workspacePlace(ctx), { ...before, enabled: false });
    return [ok('Thread context is off in this workspace: questions go to the chatbot alone.')];
  },
};

const show: AdminCommand = {
  noun: 'thread-context',
  verb: 'show',
  summary: 'Show whether thread context is on here, and its bounds',
  permission: 'admin',
  args: [],
  async run(ctx) {
    return [settingFields(await current(ctx))];
  },
};

export const threadContextCommands: AdminCommand[] = [on, off, show];
