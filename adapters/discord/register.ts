// `chatbridge discord register [--guild ID]`: puts /chatbridge on one guild (instant, for
// development) or on the whole application (global). A deploy step, not done at every start.
import { REST, Routes, type RESTOptions } from 'discord.js';
import { adminCommands } from '../../src/admin/index.js';
import { maskSecrets } from '../../src/log.js';
import { proxyFromEnv, type ProxySettings } from '../../src/service/index.js';
import { closeOutbound, proxiedOutbound } from '../shared/outbound.js';
import { restThrough } from './rest-transport.js';
import { buildSlashCommand } from './commands/build.js';
import { ErrorCode, isCodedError } from '../../src/errors.js';
import { readSettings } from '../../src/settings/index.js';
import { discordConfig } from './config.js';

export interface RegisterOptions {
  token: string;
  /** REST base URL including /api; Discord's when absent. */
  apiUrl?: string;
  /** Read from the API (the token's application) when absent. */
  applicationId?: string;
  /** Register on this guild only; globally when absent. */
  guildId?: string;
  /** The proxy variables' values, when set. */
  proxy?: ProxySettings;
}

export interface RegisterResult {
  applicationId: string;
  scope: 'guild' | 'global';
  guildId?: string;
  commands: string[];
}

/**
 * Replaces the application's commands in that scope with /chatbridge (PUT is a bulk overwrite:
 * the application belongs to chatbridge).
 */
export async function registerCommands(options: RegisterOptions): Promise<RegisterResult> {
  const outbound = proxiedOutbound(options.proxy);
  try {
    const transport = outbound ? { makeRequest: restThrough(outbound.dispatcher) } : {};
    return await putCommands(options, transport);
  } finally {
    await closeOutbound(outbound);
  }
}

async function putCommands(
  options: RegisterOptions,
  transport: Partial<RESTOptions>,
): Promise<RegisterResult> {
  const rest = new REST({
    ...(options.apiUrl ? { api: options.apiUrl } : {}),
    ...transport,
  }).setToken(options.token);
  const applicationId =
    options.applicationId ?? ((await rest.get(Routes.currentApplication())) as { id: string }).id;
  const body = [buildSlashCommand(adminCommands)];
  const route = options.guildId
    ? Routes.applicationGuildCommands(applicationId, options.guildId)
    : Routes.applicationCommands(applicationId);
  const saved = (await rest.put(route, { body })) as { name: string }[];
  return {
    applicationId,
    scope: options.guildId ? 'guild' : 'global',
    ...(options.guildId ? { guildId: options.guildId } : {}),
    commands: saved.map((c) => c.name),
  };
}

const USAGE = 'usage: chatbridge discord register [--guild ID]';

export interface CommandIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

/** The `discord` CLI command; returns the exit code. */
export async function runDiscordCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: CommandIo = { out: process.stdout, err: process.stderr },
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'register') {
    io.err.write(
      `${sub === undefined ? 'missing command' : `unknown command "${sub}"`}\n${USAGE}\n`,
    );
    return 2;
  }
  let guildId: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i]!;
    const inline = word.startsWith('--guild=') ? word.slice('--guild='.length) : undefined;
    if (word !== '--guild' && inline === undefined) {
      io.err.write(`unexpected "${word}"\n${USAGE}\n`);
      return 2;
    }
    guildId = inline ?? rest[++i];
    if (guildId === undefined || !/^\d{5,25}$/.test(guildId)) {
      io.err.write(
        `--guild: must be a server id (a number; Developer Mode → Copy Server ID)\n${USAGE}\n`,
      );
      return 2;
    }
  }
  let config;
  let proxy;
  try {
    config = discordConfig(readSettings('discord', env));
    proxy = proxyFromEnv(env);
  } catch (error) {
    if (isCodedError(error, ErrorCode.ConfigInvalid)) {
      io.err.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (!config) {
    io.err.write('DISCORD_TOKEN: is required to register the slash command\n');
    return 2;
  }
  try {
    const result = await registerCommands({
      token: config.token,
      apiUrl: config.apiUrl,
      applicationId: config.applicationId,
      guildId,
      proxy,
    });
    const where =
      result.scope === 'guild' ? `on server ${result.guildId} (available now)` : 'globally';
    io.out.write(
      `Registered /${result.commands.join(', /')} ${where} for application ${result.applicationId}.\n`,
    );
    return 0;
  } catch (error) {
    io.err.write(`discord register failed: ${maskSecrets((error as Error).message)}\n`);
    return 1;
  }
}
