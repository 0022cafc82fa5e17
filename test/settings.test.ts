// The one settings table: it drives the parsing of `chatbridge start` and `chatbridge service`,
// the service's flags and usage, and docs/configuration.md; old names still read, with a warning.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { SERVICE_USAGE, serviceOptionsFrom } from '../src/local-service/command.js';
import { configurationMarkdown } from '../src/settings-reference.js';
import { rawSetting, SETTINGS, setting, settingSchema } from '../src/settings.js';

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
    const files = [
      'src/config.ts',
      'src/local-service/command.ts',
      'adapters/slack/config.ts',
      'adapters/discord/config.ts',
      'adapters/discord/shards.ts',
    ];
    const read = files.flatMap((file) =>
      [...readFileSync(resolve(root, file), 'utf8').matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map(
        (m) => m[1]!,
      ),
    );
    const names = new Set(SETTINGS.map((s) => s.name));
    expect(read.filter((name) => !names.has(name))).toEqual([]);
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
