// assistant greeting / prompts / show / reset: what a new assistant-pane thread (Slack's AI side
// pane) greets the person with and which prompts it suggests. Set for the workspace, or with
// --channel for the channel typed in (used while the person views that channel); what a
// channel does not set comes from the workspace, then the defaults.
import {
  ASSISTANT_LIMITS,
  effectiveAssistantSettings,
  type EffectiveAssistantSettings,
  type SettingSource,
} from '../../bridge/types.js';
import type { AssistantSetting } from '../../state/types.js';
import { AdminInputError } from '../errors.js';
import { channelPlace, workspacePlace } from '../resolve.js';
import type { AdminArgs, AdminCommand, AdminContext, AdminOutput } from '../types.js';
import { fields, flag, ok, positional, table } from './shared.js';

const PROMPT_ACTIONS = ['add', 'list', 'remove'] as const;
/** Slack's AI side pane: nothing on Discord or the terminal reads these settings. */
const SLACK_ONLY = ['slack'] as const;

const channelFlag = flag(
  'channel',
  'switch',
  'For this channel only (while someone views it), not the whole workspace',
);

interface Scope {
  /** The store key: the workspace place, or this channel's. */
  place: string;
  /** The channel, for a channel scope. */
  channel?: string;
  /** "this workspace" / "this channel", for messages. */
  name: string;
}

function scopeOf(ctx: AdminContext, args: AdminArgs, command: AdminCommand): Scope {
  if (args.channel !== true) return { place: workspacePlace(ctx), name: 'this workspace' };
  const place = channelPlace(ctx);
  if (place === undefined || ctx.channel === undefined) {
    throw new AdminInputError(
      '--channel',
      'needs a channel: run the command in the channel it is for',
      command,
    );
  }
  return { place, channel: ctx.channel, name: 'this channel' };
}

/** The level a scope's own setting is found at. */
const levelOf = (scope: Scope): SettingSource =>
  scope.channel === undefined ? 'workspace' : 'channel';

/** What applies in the scope now (a channel scope inherits from the workspace). */
function effective(ctx: AdminContext, scope: Scope): Promise<EffectiveAssistantSettings> {
  return effectiveAssistantSettings(ctx.state, ctx.platform, ctx.workspace, scope.channel);
}

function origin(from: SettingSource, scope: Scope): string {
  if (from === 'default') return 'the default';
  if (from === 'workspace' && scope.channel !== undefined) return 'from the workspace';
  return `set for ${scope.name}`;
}

async function update(ctx: AdminContext, scope: Scope, patch: AssistantSetting): Promise<void> {
  const own = (await ctx.state.assistantSettings.get(scope.place)) ?? {};
  await ctx.state.assistantSettings.set(scope.place, { ...own, ...patch });
}

function promptTable(settings: EffectiveAssistantSettings, scope: Scope): AdminOutput {
  const title = `Suggested prompts in ${scope.name} (${origin(settings.promptsFrom, scope)})`;
  return table(
    title,
    ['#', 'Prompt'],
    settings.prompts.map((prompt, i) => [String(i + 1), prompt]),
  );
}

function checkLength(text: string, max: number, argument: string, command: AdminCommand) {
  const length = [...text].length;
  if (length > max) {
    throw new AdminInputError(
      argument,
      `must be at most ${max} characters (got ${length})`,
      command,
    );
  }
}

const greeting: AdminCommand = {
  noun: 'assistant',
  verb: 'greeting',
  summary: "Set the greeting a new thread in Slack's assistant pane starts with",
  permission: 'admin',
  platforms: SLACK_ONLY,
  args: [
    positional('text', 'text', `The greeting, up to ${ASSISTANT_LIMITS.greetingChars} characters`),
    channelFlag,
  ],
  async run(ctx, args) {
    const scope = scopeOf(ctx, args, greeting);
    const text = (args.text as string).trim();
    checkLength(text, ASSISTANT_LIMITS.greetingChars, '<text>', greeting);
    await update(ctx, scope, { greeting: text });
    return [
      ok(`New assistant threads in ${scope.name} start with this greeting.`),
      fields('Greeting', [['Text', text]]),
    ];
  },
};

const prompts: AdminCommand = {
  noun: 'assistant',
  verb: 'prompts',
  summary: "List, add or remove the prompts suggested in a new thread of Slack's assistant pane",
  permission: 'admin',
  platforms: SLACK_ONLY,
  args: [
    positional('action', 'enum', 'What to do with the prompts', { choices: PROMPT_ACTIONS }),
    positional('prompt', 'text', 'add: the prompt to suggest; remove: its number in the list', {
      required: false,
    }),
    channelFlag,
  ],
  async run(ctx, args) {
    const scope = scopeOf(ctx, args, prompts);
    const action = args.action as (typeof PROMPT_ACTIONS)[number];
    const value = (args.prompt as string | undefined)?.trim();
    const current = await effective(ctx, scope);
    if (action === 'list') {
      if (value !== undefined) {
        throw new AdminInputError('<prompt>', '`prompts list` takes no prompt', prompts);
      }
      if (current.prompts.length === 0) {
        return [ok(`No prompts are suggested in ${scope.name}.`)];
      }
      return [promptTable(current, scope)];
    }
    // A change starts from what applies here now, so the numbers match `prompts list`.
    const list =
      action === 'add'
        ? withPrompt(current.prompts, value)
        : withoutPrompt(current.prompts, value, scope);
    await update(ctx, scope, { prompts: list });
    // What applies now: this scope's own list (set just now, so it wins over the workspace's).
    const after = { ...current, prompts: list, promptsFrom: levelOf(scope) };
    const done = action === 'add' ? 'Added the prompt' : `Removed prompt ${value}`;
    return [
      ok(`${done} for ${scope.name}.`),
      ...(after.prompts.length === 0
        ? [ok(`No prompts are suggested in ${scope.name} now.`)]
        : [promptTable(after, scope)]),
    ];
  },
};

/** `prompts add`: the list with `value` at its end. */
function withPrompt(list: readonly string[], value: string | undefined): string[] {
  if (!value) throw new AdminInputError('<prompt>', 'is required: the prompt to add', prompts);
  checkLength(value, ASSISTANT_LIMITS.promptChars, '<prompt>', prompts);
  const same = list.findIndex((p) => p.toLowerCase() === value.toLowerCase());
  if (same >= 0) {
    throw new AdminInputError('<prompt>', `is already prompt ${same + 1}`, prompts);
  }
  if (list.length >= ASSISTANT_LIMITS.prompts) {
    throw new AdminInputError(
      '<prompt>',
      `Slack shows at most ${ASSISTANT_LIMITS.prompts} suggested prompts; ` +
        'remove one first (`assistant prompts remove <number>`)',
      prompts,
    );
  }
  return [...list, value];
}

/** `prompts remove`: the list without the prompt numbered `value` (1-based, as listed). */
function withoutPrompt(list: readonly string[], value: string | undefined, scope: Scope): string[] {
  if (list.length === 0) {
    throw new AdminInputError('<prompt>', `there are no prompts in ${scope.name}`, prompts);
  }
  const number = Number(value);
  if (!value || !Number.isInteger(number) || number < 1 || number > list.length) {
    throw new AdminInputError(
      '<prompt>',
      `must be the number of a prompt in \`assistant prompts list\`, 1 to ${list.length}` +
        (value ? ` (got "${value}")` : ''),
      prompts,
    );
  }
  return list.filter((_, i) => i !== number - 1);
}

const show: AdminCommand = {
  noun: 'assistant',
  verb: 'show',
  summary: 'Show the greeting and prompts a new assistant thread gets here',
  permission: 'admin',
  platforms: SLACK_ONLY,
  args: [channelFlag],
  async run(ctx, args) {
    const scope = scopeOf(ctx, args, show);
    const current = await effective(ctx, scope);
    const out: AdminOutput[] = [
      fields(`Assistant pane in ${scope.name}`, [
        ['Greeting', current.greeting],
        ['Greeting is', origin(current.greetingFrom, scope)],
      ]),
    ];
    out.push(
      current.prompts.length === 0
        ? ok(`No prompts are suggested in ${scope.name}.`)
        : promptTable(current, scope),
    );
    return out;
  },
};

const reset: AdminCommand = {
  noun: 'assistant',
  verb: 'reset',
  summary: "Forget this place's own greeting and prompts (back to the workspace's or defaults)",
  permission: 'admin',
  platforms: SLACK_ONLY,
  args: [channelFlag],
  async run(ctx, args) {
    const scope = scopeOf(ctx, args, reset);
    await ctx.state.assistantSettings.delete(scope.place);
    const back =
      scope.channel === undefined ? 'the defaults' : "the workspace's, else the defaults";
    return [ok(`The assistant pane in ${scope.name} uses ${back} again.`)];
  },
};

export const assistantCommands: AdminCommand[] = [greeting, prompts, show, reset];
