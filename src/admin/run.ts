// Entry points: a whole line (console, CLI, Slack), words already split (CLI argv), or named
// typed options (Discord). None throws for a user's mistake or a service failure: each answers
// with blocks, an error notice naming the argument and the rule, plus the usage line.
import { ErrorCode, isCodedError } from '../errors.js';
import { isServiceError, type ServiceError } from '../service/errors.js';
import { availableOn, bindWords, checkArgs, commandName, platformNames } from './args.js';
import type { AdminInputError } from './errors.js';
import { labelOf } from './fields.js';
import { adminCommands, adminNouns, findCommand, verbsOf } from './table.js';
import { parseCommandLine } from './tokenize.js';
import type { AdminArgs, AdminCommand, AdminContext, AdminOutput } from './types.js';
import { commandHelp, usage } from './usage.js';

const error = (text: string): AdminOutput => ({ kind: 'notice', tone: 'error', text });

function refusal(command: AdminCommand): AdminOutput[] {
  return [
    {
      kind: 'notice',
      tone: 'error',
      text: `Sorry, \`${commandName(command)}\` is for admins only. \`help\` shows what everyone can use.`,
    },
  ];
}

/** A command for another platform (Slack's assistant pane typed on Discord or the CLI). */
function elsewhere(command: AdminCommand): AdminOutput[] {
  const where = platformNames(command.platforms ?? []);
  const name = commandName(command);
  return [
    error(
      `\`${name}\` is for ${where} only and changes nothing here: ` +
        `run \`/chatbridge ${name} …\` in the ${where} workspace it is for.`,
    ),
  ];
}

/** Runs a line such as `chatbot create "Support bot" --visibility public`. */
export async function runAdminLine(line: string, ctx: AdminContext): Promise<AdminOutput[]> {
  let tokens: string[];
  try {
    tokens = parseCommandLine(line.trim().replace(/^\//, '')).tokens;
  } catch (caught) {
    return explain(caught);
  }
  return runAdminTokens(tokens, ctx);
}

/** Runs words already split (the CLI's argv after `admin`), without re-quoting them. */
export async function runAdminTokens(
  tokens: readonly string[],
  ctx: AdminContext,
): Promise<AdminOutput[]> {
  const [first, second, ...rest] = tokens;
  const noun = (first ?? 'help').toLowerCase().replace(/^--?h(elp)?$/, 'help');
  if (noun === 'help') return execute(help(), ctx, () => bindWords(help(), tokens.slice(1)));
  if (!adminNouns().includes(noun)) {
    return [
      error(`"${first}" is not a command. Commands: ${adminNouns().join(', ')}.`),
      { kind: 'text', text: 'Type `help` for the list.' },
    ];
  }
  const command = second === undefined ? undefined : findCommand(noun, second);
  if (!command) {
    const what =
      second === undefined
        ? `"${noun}" needs one more word`
        : `"${noun} ${second}" is not a command`;
    return [error(`${what}: ${verbsOf(noun).join(', ')}.`)];
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    return [{ kind: 'text', text: commandHelp(command) }];
  }
  return execute(command, ctx, () => bindWords(command, rest));
}

/** Runs a command from named values (Discord options arrive typed: strings, numbers, booleans). */
export async function runAdminCommand(
  noun: string,
  verb: string,
  args: Record<string, unknown>,
  ctx: AdminContext,
): Promise<AdminOutput[]> {
  const command = findCommand(noun, verb);
  if (!command) {
    const known = adminCommands.map(commandName).join(', ');
    return [
      error(`"${[noun, verb].filter(Boolean).join(' ')}" is not a command. Commands: ${known}.`),
    ];
  }
  return execute(command, ctx, () => args);
}

function help(): AdminCommand {
  return findCommand('help', '') as AdminCommand;
}

async function execute(
  command: AdminCommand,
  ctx: AdminContext,
  rawArgs: () => AdminArgs,
): Promise<AdminOutput[]> {
  if (command.permission === 'admin' && !ctx.isAdmin) return refusal(command);
  if (!availableOn(command, ctx.platform)) return elsewhere(command);
  try {
    const args = await checkArgs(command, rawArgs(), ctx);
    return await command.run(ctx, args);
  } catch (caught) {
    return explain(caught, command);
  }
}

/** Turns anything thrown into blocks, chosen by code. Service error messages carry no key. */
function explain(caught: unknown, command?: AdminCommand): AdminOutput[] {
  if (isCodedError(caught, ErrorCode.AdminInput)) {
    const about = (caught as AdminInputError).command ?? command;
    const blocks = [error(caught.message)];
    if (about) blocks.push({ kind: 'text', text: `Usage: ${usage(about)}` });
    return blocks;
  }
  if (isCodedError(caught, ErrorCode.AdminRefused)) return [error(caught.message)];
  if (isServiceError(caught)) return [error(serviceMessage(caught))];
  const message = caught instanceof Error ? caught.message : String(caught);
  return [error(`Something went wrong: ${message}`)];
}

function serviceMessage(e: ServiceError): string {
  const detail = e.message.split('\n')[0]?.slice(0, 300) ?? '';
  switch (e.kind) {
    case 'validation':
      return e.field
        ? `The service refused ${labelOf(e.field)}: ${e.rule ?? detail}`
        : `The service refused the request: ${detail}`;
    case 'not_found':
      return `The service does not know that item (it may have been deleted): ${detail}`;
    case 'auth':
      return 'The service refused the API key: check CHATBRIDGE_API_KEY.';
    case 'rate_limited':
      return 'The service is rate limiting us; try again in a moment.';
    case 'unavailable':
      return `The chatbot service is unavailable right now: ${detail}`;
    case 'timeout':
      return 'The chatbot service did not answer in time; try again.';
    case 'conflict':
      return `The service says this already exists: ${detail}`;
    default:
      return `The service answered something unexpected: ${detail}`;
  }
}
