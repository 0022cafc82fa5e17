// Binds the words after `noun verb` to a command's ArgSpecs, and checks a set of named values
// (from a line or from Discord's typed options) against them. Mistakes name the argument.
import { FileTooLarge } from './local-file.js';
import { argLabel, coerceArg, isAdminFile } from './coerce.js';
import { AdminInputError } from './errors.js';
import type { AdminArgs, AdminCommand, AdminContext, ArgSpec } from './types.js';

const byName = (command: AdminCommand, name: string): ArgSpec | undefined =>
  command.args.find((spec) => spec.name === name);

function optionList(command: AdminCommand): string {
  const flags = command.args.filter((spec) => !spec.positional).map(argLabel);
  return flags.length === 0 ? 'it takes no options' : `its options are ${flags.join(', ')}`;
}

/** Words → raw values by argument name (text, or true for a switch). */
export function bindWords(command: AdminCommand, words: readonly string[]): AdminArgs {
  const raw: AdminArgs = {};
  const positionals = command.args.filter((spec) => spec.positional);
  let nextPositional = 0;
  let flagsEnded = false;
  const put = (spec: ArgSpec, value: unknown, as: string): void => {
    if (raw[spec.name] !== undefined) {
      if (!spec.multiple) throw new AdminInputError(as, 'is given twice', command);
      raw[spec.name] = `${String(raw[spec.name])},${String(value)}`;
      return;
    }
    raw[spec.name] = value;
  };
  for (let i = 0; i < words.length; i += 1) {
    // Chat clients and some keyboards turn "--" into an en or em dash.
    const word = (words[i] as string).replace(/^[\u2013\u2014](?=[a-z])/i, '--');
    if (!flagsEnded && word === '--') {
      flagsEnded = true;
      continue;
    }
    if (!flagsEnded && word.startsWith('--') && word.length > 2) {
      const eq = word.indexOf('=');
      const name = (eq < 0 ? word.slice(2) : word.slice(2, eq)).toLowerCase();
      const spec = byName(command, name);
      if (!spec) {
        throw new AdminInputError(
          `--${name}`,
          `is not an option of "${commandName(command)}"; ${optionList(command)}`,
          command,
        );
      }
      if (eq >= 0) {
        put(spec, word.slice(eq + 1), `--${name}`);
      } else if (spec.kind === 'switch') {
        put(spec, true, `--${name}`);
      } else {
        const value = words[i + 1];
        if (value === undefined || (value.startsWith('--') && value.length > 2)) {
          throw new AdminInputError(`--${name}`, 'needs a value', command);
        }
        put(spec, value, `--${name}`);
        i += 1;
      }
      continue;
    }
    const spec = positionals[nextPositional];
    if (!spec) {
      throw new AdminInputError(
        undefined,
        `unexpected "${word}": "${commandName(command)}" takes ${positionals.length} ` +
          'plain argument(s); put text with spaces in "double quotes"',
        command,
      );
    }
    put(spec, word, argLabel(spec));
    nextPositional += 1;
  }
  return raw;
}

export function commandName(command: AdminCommand): string {
  return command.verb === '' ? command.noun : `${command.noun} ${command.verb}`;
}

/** Whether the command means something on this platform (see AdminCommand.platforms). */
export function availableOn(command: AdminCommand, platform: string): boolean {
  return command.platforms === undefined || command.platforms.includes(platform);
}

/** The platforms a command is limited to, as people name them: "Slack", "Slack or Discord". */
export function platformNames(platforms: readonly string[], joiner = ' or '): string {
  return platforms.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join(joiner);
}

/**
 * Checks named values against the command's specs: unknown names, required arguments, each
 * value coerced to its kind. A `file` argument is resolved to an AdminFile here: the value if
 * it already is one, else ctx.file (an attachment), else a path read with ctx.readFile.
 */
export async function checkArgs(
  command: AdminCommand,
  raw: AdminArgs,
  ctx: AdminContext,
): Promise<AdminArgs> {
  const args: AdminArgs = {};
  for (const name of Object.keys(raw)) {
    if (!byName(command, name)) {
      throw new AdminInputError(
        `--${name}`,
        `is not an option of "${commandName(command)}"; ${optionList(command)}`,
        command,
      );
    }
  }
  for (const spec of command.args) {
    const value = raw[spec.name];
    if (spec.kind === 'file') {
      const file = await resolveFile(command, spec, value, ctx);
      if (file !== undefined) args[spec.name] = file;
      continue;
    }
    if (value === undefined || value === null || value === '') {
      if (spec.required) throw new AdminInputError(argLabel(spec), 'is required', command);
      continue;
    }
    try {
      args[spec.name] = coerceArg(spec, value);
    } catch (error) {
      if (error instanceof AdminInputError) {
        throw new AdminInputError(error.argument, error.rule, command);
      }
      throw error;
    }
  }
  return args;
}

async function resolveFile(
  command: AdminCommand,
  spec: ArgSpec,
  value: unknown,
  ctx: AdminContext,
): Promise<unknown> {
  if (isAdminFile(value)) return value;
  if (typeof value === 'string' && value !== '') {
    if (!ctx.readFile) {
      throw new AdminInputError(
        argLabel(spec),
        'attach the file to the command here; a path only works on the command line',
        command,
      );
    }
    try {
      return await ctx.readFile(value);
    } catch (error) {
      if (error instanceof FileTooLarge)
        throw new AdminInputError(argLabel(spec), error.message, command);
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new AdminInputError(argLabel(spec), `cannot read "${value}" (${reason})`, command);
    }
  }
  if (ctx.file) return ctx.file;
  if (spec.required) {
    const how = ctx.readFile ? 'give the path of the file' : 'attach a file to the command';
    throw new AdminInputError(argLabel(spec), `is required: ${how}`, command);
  }
  return undefined;
}
