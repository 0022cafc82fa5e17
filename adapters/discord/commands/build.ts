// `/chatbridge` as Discord application-command JSON, built from the shared admin table: one
// subcommand group per noun, one subcommand per verb, options typed from each ArgSpec. Nothing
// here is written twice: a new admin command shows up in Discord after `discord register`.
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  InteractionContextType,
  PermissionFlagsBits,
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandOption,
  type APIApplicationCommandSubcommandOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { availableOn } from '../../../src/admin/index.js';
import type { AdminCommand, ArgSpec, ReferenceKind } from '../../../src/admin/types.js';

export const COMMAND_NAME = 'chatbridge';

const REFERENCE_KINDS: readonly string[] = [
  'chatbot',
  'agent',
  'source',
  'tag',
] satisfies ReferenceKind[];
const MAX_DESCRIPTION = 100;
const MAX_CHOICES = 25;

function description(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim() || '-';
  return line.length <= MAX_DESCRIPTION ? line : `${line.slice(0, MAX_DESCRIPTION - 1)}\u2026`;
}

/** Discord option names: lowercase letters, digits, - and _, at most 32. */
export function optionName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '-')
    .slice(0, 32);
}

export function isReferenceKind(kind: string): kind is ReferenceKind {
  return REFERENCE_KINDS.includes(kind);
}

/** One ArgSpec as a typed Discord option. */
export function optionFor(spec: ArgSpec): APIApplicationCommandBasicOption {
  const base = {
    name: optionName(spec.name),
    description: description(spec.help),
    required: spec.required,
  };
  if (spec.kind === 'file') return { ...base, type: ApplicationCommandOptionType.Attachment };
  if (spec.kind === 'switch' || spec.kind === 'boolean') {
    return { ...base, type: ApplicationCommandOptionType.Boolean };
  }
  if (spec.kind === 'number' && !spec.multiple) {
    return {
      ...base,
      type: ApplicationCommandOptionType.Number,
      ...(spec.min === undefined ? {} : { min_value: spec.min }),
      ...(spec.max === undefined ? {} : { max_value: spec.max }),
    };
  }
  const choices = spec.kind === 'enum' && !spec.multiple ? (spec.choices ?? []) : [];
  if (choices.length > 0 && choices.length <= MAX_CHOICES) {
    return {
      ...base,
      type: ApplicationCommandOptionType.String,
      choices: choices.map((value) => ({ name: value, value })),
    };
  }
  return {
    ...base,
    type: ApplicationCommandOptionType.String,
    // References are completed by name from the service (see `suggest`); enums too long for
    // choices are completed from their list.
    ...(isReferenceKind(spec.kind) || spec.kind === 'enum' ? { autocomplete: true } : {}),
  };
}

function subcommand(command: AdminCommand, name: string): APIApplicationCommandSubcommandOption {
  // Discord wants the required options first; the table's order is kept otherwise.
  // Arguments for the command line only (a path to write to) have no place here.
  const options = command.args
    .filter((spec) => !spec.localOnly)
    .sort((a, b) => Number(b.required) - Number(a.required))
    .map(optionFor);
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: optionName(name),
    description: description(command.summary),
    ...(options.length > 0 ? { options } : {}),
  };
}

/** The whole `/chatbridge` command, ready to PUT to the application commands endpoint. */
export function buildSlashCommand(
  commands: readonly AdminCommand[],
): RESTPostAPIChatInputApplicationCommandsJSONBody {
  const options: APIApplicationCommandOption[] = [];
  const groups = new Map<string, APIApplicationCommandSubcommandOption[]>();
  for (const command of commands.filter((c) => availableOn(c, 'discord'))) {
    if (command.verb === '') {
      // A noun alone (help) is a plain subcommand beside the groups.
      options.push(subcommand(command, command.noun));
      continue;
    }
    let group = groups.get(command.noun);
    if (!group) {
      group = [];
      groups.set(command.noun, group);
    }
    group.push(subcommand(command, command.verb));
  }
  for (const [noun, subcommands] of groups) {
    options.push({
      type: ApplicationCommandOptionType.SubcommandGroup,
      name: optionName(noun),
      description: description(`Manage ${noun}s`),
      options: subcommands,
    });
  }
  return {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND_NAME,
    description: 'Run the chatbot: chatbots, agents, data sources, tags and sessions',
    // Visible to Manage Server holders by default; server admins may widen it per role.
    default_member_permissions: PermissionFlagsBits.ManageGuild.toString(),
    contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
    options,
  };
}

/** Discord's cap on one command: names, descriptions and choice values together. */
export function commandSize(json: RESTPostAPIChatInputApplicationCommandsJSONBody): number {
  let total = 0;
  const walk = (option: {
    name: string;
    description?: string;
    choices?: readonly { name: string; value: string | number }[];
    options?: readonly unknown[];
  }) => {
    total += option.name.length + (option.description?.length ?? 0);
    for (const choice of option.choices ?? [])
      total += choice.name.length + String(choice.value).length;
    for (const child of option.options ?? []) walk(child as Parameters<typeof walk>[0]);
  };
  walk(json);
  return total;
}
