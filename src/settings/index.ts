// Every setting chatbridge reads from the environment, in one table (as Datasette's SETTINGS):
// name, type, default and help, and for `chatbridge service` its flag. The rows live by area
// (start.ts, service.ts, slack.ts, discord.ts); SETTINGS joins them. The table drives the zod
// parsing (`readSettings`: config.ts, local-service/command.ts, the platforms the adapters are
// handed parsed), the service's flags and usage text, and the generated docs/configuration.md
// (settings-reference.ts). One name per knob; a renamed knob keeps reading its old names, with a
// deprecation warning the first time each one is used.
import { z } from 'zod';
import { CodedError, ErrorCode } from '../errors.js';
import { DISCORD_SETTINGS } from './discord.js';
import { settingSchema } from './parse.js';
import { SERVICE_SETTINGS } from './service.js';
import { SLACK_SETTINGS } from './slack.js';
import { START_SETTINGS } from './start.js';
import type { Setting, SettingUse, ValuesOf } from './types.js';

export * from './types.js';
export { ruleOf, settingSchema } from './parse.js';

const ROWS = [...START_SETTINGS, ...SERVICE_SETTINGS, ...SLACK_SETTINGS, ...DISCORD_SETTINGS];

/** The one table, in the order of docs/configuration.md. */
export const SETTINGS: readonly Setting[] = ROWS;

/** The parsed settings a command or surface reads, typed by the table's rows. */
export type SettingsOf<U extends SettingUse> = ValuesOf<U, (typeof ROWS)[number]>;

/** The setting of this name; throws for a name not in the table (a typo in code). */
export function setting(name: string): Setting {
  const found = SETTINGS.find((s) => s.name === name);
  if (!found) throw new Error(`no setting named ${name}`);
  return found;
}

/** The settings a command or surface reads. */
export function settingsOf(use: SettingUse): Setting[] {
  return SETTINGS.filter((s) => s.use.includes(use));
}

/** The old names each warning function was told of: the process's own once per process, and
 * one a caller passes (a test, a command's output) told afresh, whatever ran before it. */
const warnedOldNames = new WeakMap<DeprecationWarn, Set<string>>();

/** Says once per process that an old name was read. */
export type DeprecationWarn = (message: string) => void;

const processWarning: DeprecationWarn = (message) =>
  process.emitWarning(message, { type: 'DeprecationWarning', code: 'CHATBRIDGE_SETTING' });

/**
 * The raw value of a setting and the variable it came from: its name, else the first old name
 * set (told to `warn` once per old name and process).
 */
export function rawSetting(
  s: Setting,
  env: Readonly<Record<string, string | undefined>>,
  warn: DeprecationWarn = processWarning,
): { raw: string | undefined; from: string } {
  if (env[s.name] !== undefined) return { raw: env[s.name], from: s.name };
  for (const old of s.oldNames ?? []) {
    if (env[old] === undefined) continue;
    const told = warnedOldNames.get(warn) ?? new Set<string>();
    warnedOldNames.set(warn, told);
    if (!told.has(old)) {
      told.add(old);
      warn(`${old} is deprecated: set ${s.name} instead (it is still read for now)`);
    }
    return { raw: env[old], from: old };
  }
  return { raw: undefined, from: s.name };
}

/** The environment with each setting under its one name (old names read, with a warning). */
export function currentNames(
  settings: readonly Setting[],
  env: Readonly<Record<string, string | undefined>>,
  warn?: DeprecationWarn,
): Record<string, string | undefined> {
  return Object.fromEntries(settings.map((s) => [s.name, rawSetting(s, env, warn).raw]));
}

/** Settings that cannot be used: each problem names the variable and the rule it breaks. */
export class ConfigError extends CodedError {
  constructor(readonly problems: string[]) {
    super(
      ErrorCode.ConfigInvalid,
      `configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** Rules between settings: `problem(name, rule)` for each one broken. */
export type CrossCheck<U extends SettingUse> = (
  values: SettingsOf<U>,
  problem: (name: string, rule: string) => void,
) => void;

/**
 * The settings `use` reads from `env`, parsed by the table (old names read, with a warning);
 * every broken value, and every rule of `check` broken, is named in one ConfigError.
 */
export function readSettings<U extends SettingUse>(
  use: U,
  env: Readonly<Record<string, string | undefined>>,
  options: { warn?: DeprecationWarn; check?: CrossCheck<U> } = {},
): SettingsOf<U> {
  const rows = settingsOf(use);
  const schema = z
    .object(Object.fromEntries(rows.map((s) => [s.name, settingSchema(s)])))
    .superRefine((values, ctx) =>
      options.check?.(values as SettingsOf<U>, (name, message) =>
        ctx.addIssue({ code: 'custom', path: [name], message }),
      ),
    );
  const parsed = schema.safeParse(currentNames(rows, env, options.warn));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`),
    );
  }
  return parsed.data as SettingsOf<U>;
}
