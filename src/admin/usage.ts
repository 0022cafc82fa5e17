// Usage lines and help text, built from the table so they never disagree with it.
import { commandName } from './args.js';
import type { AdminCommand, ArgSpec } from './types.js';

function placeholder(spec: ArgSpec): string {
  if (spec.multiple) return `${spec.kind === 'source' ? 'SOURCE' : 'VALUE'},…`;
  switch (spec.kind) {
    case 'enum':
    case 'boolean':
      return (spec.choices ?? ['on', 'off']).join('|');
    case 'rate-limit':
      return 'N/S';
    case 'colour':
      return '#rrggbb';
    case 'number':
      return 'N';
    case 'variables':
      return 'name=value,…';
    case 'list':
      return 'A,B,…';
    case 'duration':
      return 'AGE';
    case 'switch':
      return '';
    default:
      return spec.kind.toUpperCase();
  }
}

function argUsage(spec: ArgSpec): string {
  if (spec.positional) {
    const word = `<${spec.name}>`;
    return spec.required ? word : `[${word}]`;
  }
  const value = placeholder(spec);
  const text = value === '' ? `--${spec.name}` : `--${spec.name} ${value}`;
  return spec.required ? text : `[${text}]`;
}

/** `chatbot create <name> [--visibility private|public|hybrid] …` */
export function usage(command: AdminCommand): string {
  return [commandName(command), ...command.args.map(argUsage)].join(' ');
}

/** `agent create <name> --type … [options]`: what must be typed, for the overview. */
export function shortUsage(command: AdminCommand): string {
  const needed = command.args
    .filter((spec) => spec.positional || spec.required)
    .map((spec) =>
      spec.kind === 'enum' && !spec.positional
        ? `--${spec.name} ${spec.name.toUpperCase()}`
        : argUsage(spec),
    );
  const optional = command.args.some((spec) => !spec.positional && !spec.required);
  return [commandName(command), ...needed, ...(optional ? ['[options]'] : [])].join(' ');
}

/** One line per command: short usage and summary, aligned. */
export function overview(commands: readonly AdminCommand[]): string {
  const width = Math.max(0, ...commands.map((c) => shortUsage(c).length));
  return commands
    .map(
      (c) =>
        `${shortUsage(c).padEnd(width)}  ${c.summary}${c.permission === 'anyone' ? ' (anyone)' : ''}`,
    )
    .join('\n');
}

function argHelp(spec: ArgSpec): string {
  const choices =
    spec.kind === 'enum' && spec.choices ? ` (one of ${spec.choices.join(', ')})` : '';
  return `${spec.help}${choices}${spec.required ? '' : ' [optional]'}`;
}

/** Help for one command: usage, summary, one line per argument. */
export function commandHelp(command: AdminCommand): string {
  const label = (spec: ArgSpec): string => (spec.positional ? `<${spec.name}>` : `--${spec.name}`);
  const width = Math.max(0, ...command.args.map((spec) => label(spec).length));
  const lines = [
    usage(command),
    `  ${command.summary}${command.permission === 'anyone' ? ' (anyone)' : ''}`,
  ];
  for (const spec of command.args) lines.push(`    ${label(spec).padEnd(width)}  ${argHelp(spec)}`);
  return lines.join('\n');
}
