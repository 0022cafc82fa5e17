#!/usr/bin/env node
// chatbridge start | service | admin <command …> | discord register [--guild ID]
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from './config.js';
import { packageRoot } from './embedded.js';

const USAGE = `Usage: chatbridge <command>

  start                      run the bot: Slack and/or Discord when their tokens are set,
                             otherwise a chat in this terminal (the default for npm start)
  service [flags]            run the local chatbot service (see: chatbridge service --help)
  admin <command …>          run an admin command against the configured service
                             (see: chatbridge admin help)
  discord register [--guild ID]
                             register the /chatbridge slash command with Discord
  --version                  print the version

Configuration is read from environment variables, and from a .env file in the working
directory for those the environment does not set: see README.md and .env.example.`;

/** A .env in the working directory fills in what the environment leaves unset (Node's parser). */
function loadDotEnv(): void {
  const path = resolve('.env');
  if (existsSync(path)) process.loadEnvFile(path);
}

async function version(): Promise<string> {
  const pkg = JSON.parse(await readFile(join(packageRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start': {
      const { start } = await import('./start.js');
      await start({ env: process.env, stdin: process.stdin, stdout: process.stdout });
      return 0;
    }
    case 'service': {
      const { runServiceCommand } = await import('./local-service/index.js');
      return (await runServiceCommand(rest, process.env)) ?? 0;
    }
    case 'admin': {
      const { runAdminCli } = await import('./admin-cli.js');
      return runAdminCli(rest, process.env, process.stdout);
    }
    case 'discord': {
      const { runDiscordCommand } = await import('../adapters/discord/index.js');
      return (await runDiscordCommand(rest, process.env)) ?? 0;
    }
    case '--version':
    case '-v':
      console.log(await version());
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(`chatbridge: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

loadDotEnv();
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message =
      error instanceof ConfigError ? error.message : `${(error as Error)?.message ?? error}`;
    console.error(`chatbridge: ${message}`);
    process.exitCode = 1;
  },
);
