// The one settings table: it drives the parsing of `chatbridge start` and `chatbridge service`,
// the service's flags and usage, and docs/configuration.md; old names still read, with a warning.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { SERVICE_USAGE, serviceOptionsFrom } from '../src/local-service/command.js';
import { configurationMarkdown } from '../src/settings-reference.js';
import {
  ConfigError,
  rawSetting,
  readSettings,
  SETTINGS,
  setting,
  settingSchema,
} from '../src/settings/index.js';

const root = resolve(import.meta.dirname, '..');

describe('docs/configuration.md', () => {
  it('is generated from the settings table (run `npm run docs` after a change)', () => {
    expect(readFileSync(resolve(root, 'docs/configuration.md'), 'utf8')).toBe(
      configurationMarkdown(),
    );
  });

  it('the README points to it', () => {
    expect(readFileSync(resolve(root, 'README.md'), 'utf8')).toContain('docs/configuration.md');
  });
});

describe('the settings table', () => {
  it('has one row per name, and no old name is another row', () => {
    const names = SETTINGS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of SETTINGS) for (const old of s.oldNames ?? []) expect(names).not.toContain(old);
  });

  it('lists every variable the code reads', () => {
    // The adapters read none: they are handed their settings parsed (typed by the table's rows).
    const files = ['src/config.ts', 'src/local-service/command.ts', 'src/start.ts'];
    const read = files.flatMap((file) =>
      [...readFileSync(resolve(root, file), 'utf8').matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map(
        (m) => m[1]!,
      ),
    );
    const names = new Set(SETTINGS.map((s) => s.name));
    expect(read.filter((name) => !names.has(name))).toEqual([]);
    for (const file of ['adapters/slack/config.ts', 'adapters/discord/config.ts']) {
      expect(readFileSync(resolve(root, file), 'utf8')).not.toMatch(/\benv\b|process\.env/);
    }
  });

  it('parses by type, applies the default, and states the rule of a broken value', () => {
    const port = settingSchema(setting('PORT'));
    expect(port.parse(undefined)).toBe(3000);
    expect(port.parse(' 8080 ')).toBe(8080);
    const broken = port.safeParse('1e3');
    expect(broken.success).toBe(false);
    expect(broken.error?.issues[0]?.message).toBe('must be a whole number from 0 to 65535');
    expect(settingSchema(setting('CHATBRIDGE_ADMINS')).parse('U1, U2 U3')).toEqual([
      'U1',
      'U2',
      'U3',
    ]);
  });

  it('gives the service one flag per setting that has one, in its usage with the variable', () => {
    for (const s of SETTINGS.filter((x) => x.flag)) {
      expect(SERVICE_USAGE).toContain(`--${s.flag}`);
      expect(SERVICE_USAGE).toContain(`env ${s.name}`);
    }
    expect(SERVICE_USAGE).toContain('(default 8787)');
  });
});

describe('the adapters’ settings', () => {
  it('are read by the table and handed over typed, with defaults and shared rows', () => {
    const slack = readSettings('slack', {
      SLACK_BOT_TOKEN: ' xoxb-1 ',
      CHATBRIDGE_ADMINS: 'U1 U2',
    });
    expect(slack).toMatchObject({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_API_URL: 'https://slack.com/api/',
      PORT: 3000,
      CHATBRIDGE_ADMINS: ['U1', 'U2'],
      CHATBRIDGE_MAX_UPLOAD_BYTES: 10 * 1024 * 1024,
    });
    expect(slack).not.toHaveProperty('DISCORD_TOKEN');
    const discord = readSettings('discord', {
      DISCORD_SHARD_COUNT: '4',
      DISCORD_MESSAGE_CONTENT: 'On',
    });
    expect(discord).toMatchObject({ DISCORD_SHARD_COUNT: 4, DISCORD_MESSAGE_CONTENT: 'on' });
    expect(discord).not.toHaveProperty('PORT');
  });

  it('name every broken value with its rule at once, never the value', () => {
    let error: unknown;
    try {
      readSettings('discord', {
        DISCORD_TOKEN: 'secret-one secret-two',
        DISCORD_APPLICATION_ID: 'app',
        CHATBRIDGE_MAX_UPLOAD_BYTES: '0',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'CHATBRIDGE_MAX_UPLOAD_BYTES must be a whole number from 1 to 100000000',
      'DISCORD_TOKEN must be one word (the bot token; a pasted "Bot " prefix is dropped)',
      'DISCORD_APPLICATION_ID must be a numeric snowflake id',
    ]);
    expect((error as Error).message).not.toContain('secret-');
  });
});

describe('old names', () => {
  it('are read when the new name is unset, with one warning per name', () => {
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    const s = setting('LLM_IDLE_TIMEOUT_MS');
    const env = { CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS: '900' };
    expect(rawSetting(s, env, warn)).toEqual({
      raw: '900',
      from: 'CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS',
    });
    rawSetting(s, env, warn);
    expect(warnings).toEqual([
      'CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS is deprecated: set LLM_IDLE_TIMEOUT_MS instead (it is still read for now)',
    ]);
    // The new name wins.
    expect(rawSetting(s, { ...env, LLM_IDLE_TIMEOUT_MS: '5' }, warn).raw).toBe('5');
  });

  it('reach both commands: one name per knob for the local service’s model', () => {
    const quiet = () => undefined;
    const env = { LLM_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'm', LLM_IDLE_TIMEOUT_MS: '700' };
    expect(loadConfig(env, quiet).llm).toMatchObject({ model: 'm', idleTimeoutMs: 700 });
    const options = serviceOptionsFrom([], { ...env, CHATBRIDGE_SERVICE_API_KEYS: 'k' }, quiet);
    expect(options.llm).toMatchObject({ url: env.LLM_URL, model: 'm', idleTimeoutMs: 700 });
    const old = serviceOptionsFrom(
      [],
      {
        CHATBRIDGE_SERVICE_API_KEYS: 'k',
        CHATBRIDGE_SERVICE_LLM_URL: env.LLM_URL,
        CHATBRIDGE_SERVICE_LLM_MODEL: 'old',
      },
      quiet,
    );
    expect(old.llm).toMatchObject({ url: env.LLM_URL, model: 'old' });
  });
});
