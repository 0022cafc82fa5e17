// chatbridge's environment settings: the language model of the embedded service and its
// timeouts, and the bound on its indexed chunks, parsed, refused with the variable's name, and
// used by the running service.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { configuredPlatforms } from '../src/platforms.js';
import { startEmbeddedService } from '../src/embedded.js';
import { createLogger } from '../src/log.js';
import { createServiceClient } from '../src/service/index.js';
import { expectModelGivenUp, startSilentLlm } from './local-service/silent-llm.js';
import { sharedConverters } from './converters.js';

const LLM = { LLM_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3' };

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('the configuration was accepted');
}

describe('language model settings', () => {
  it('has no model, and so no timeouts, unless LLM_URL is set', () => {
    expect(loadConfig({}).llm).toBeUndefined();
    expect(loadConfig({ LLM_FIRST_BYTE_TIMEOUT_MS: '500' }).llm).toBeUndefined();
  });

  it('reads the address, model, key and both timeouts', () => {
    const config = loadConfig({
      ...LLM,
      LLM_API_KEY: 'sk-config-test-0123',
      LLM_FIRST_BYTE_TIMEOUT_MS: '1500',
      LLM_IDLE_TIMEOUT_MS: ' 90000 ',
    });
    expect(config.llm).toEqual({
      url: LLM.LLM_URL,
      model: 'llama3',
      apiKey: 'sk-config-test-0123',
      firstByteTimeoutMs: 1500,
      idleTimeoutMs: 90_000,
    });
  });

  it('leaves unset (or empty) timeouts to the service defaults, and the model to gpt-4o-mini', () => {
    const config = loadConfig({ LLM_URL: LLM.LLM_URL, LLM_IDLE_TIMEOUT_MS: '' });
    expect(config.llm).toEqual({
      url: LLM.LLM_URL,
      model: 'gpt-4o-mini',
      apiKey: undefined,
      firstByteTimeoutMs: undefined,
      idleTimeoutMs: undefined,
    });
  });

  it.each(['LLM_FIRST_BYTE_TIMEOUT_MS', 'LLM_IDLE_TIMEOUT_MS'])(
    'refuses a %s that is not a positive whole number of milliseconds',
    (name) => {
      for (const bad of ['0', '-5', 'abc', '1.5', '1e3', '3600001']) {
        expect(problemsOf({ ...LLM, [name]: bad }), `${name}=${bad}`).toEqual([
          `${name} must be a whole number from 1 to 3600000`,
        ]);
      }
      // Even without LLM_URL: a mistake is reported, not silently ignored.
      expect(problemsOf({ [name]: 'abc' })).toEqual([
        `${name} must be a whole number from 1 to 3600000`,
      ]);
    },
  );

  it('reads PORT and CHATBRIDGE_DRAIN_MS, and names a bad value with its rule', () => {
    expect(loadConfig({})).toMatchObject({ port: 3000, drainMs: 10_000 });
    expect(loadConfig({ PORT: '8080', CHATBRIDGE_DRAIN_MS: '0' })).toMatchObject({
      port: 8080,
      drainMs: 0,
    });
    expect(problemsOf({ PORT: '70000', CHATBRIDGE_DRAIN_MS: 'soon' })).toEqual([
      'CHATBRIDGE_DRAIN_MS must be a whole number from 0 to 600000',
      'PORT must be a whole number from 0 to 65535',
    ]);
  });

  it('renews leases every third of CHATBRIDGE_LEASE_MS unless told, and never as late as the lease', () => {
    expect(loadConfig({}).leaseRenewMs).toBeUndefined();
    expect(
      loadConfig({ CHATBRIDGE_LEASE_MS: '3600', CHATBRIDGE_LEASE_RENEW_MS: '200' }),
    ).toMatchObject({ leaseMs: 3600, leaseRenewMs: 200 });
    // Renewed no sooner than it runs out, a live replica's lease would lapse between renewals.
    expect(problemsOf({ CHATBRIDGE_LEASE_MS: '3600', CHATBRIDGE_LEASE_RENEW_MS: '3600' })).toEqual([
      'CHATBRIDGE_LEASE_RENEW_MS must be less than CHATBRIDGE_LEASE_MS',
    ]);
    expect(problemsOf({ CHATBRIDGE_LEASE_RENEW_MS: '20000' })).toEqual([
      'CHATBRIDGE_LEASE_RENEW_MS must be less than CHATBRIDGE_LEASE_MS',
    ]);
  });

  it('names every bad timeout at once', () => {
    expect(
      problemsOf({ ...LLM, LLM_FIRST_BYTE_TIMEOUT_MS: '0', LLM_IDLE_TIMEOUT_MS: 'soon' }),
    ).toEqual([
      'LLM_FIRST_BYTE_TIMEOUT_MS must be a whole number from 1 to 3600000',
      'LLM_IDLE_TIMEOUT_MS must be a whole number from 1 to 3600000',
    ]);
  });
});

/** The embedded service on `env` (in a fresh data folder), its client, and its warn lines. */
async function embeddedWith(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), 'chatbridge-config-'));
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', destination: { write: (l) => lines.push(l) } });
  const config = loadConfig({
    CHATBRIDGE_DATA_DIR: dataDir,
    CHATBRIDGE_STREAM_DELAY_MS: '0',
    ...env,
  });
  const embedded = await startEmbeddedService(config, logger, {
    extractionPool: sharedConverters,
  });
  const client = createServiceClient({
    baseUrl: embedded.url,
    apiKey: embedded.apiKey,
    maxRetries: 0,
  });
  return {
    client,
    lines,
    close: async () => {
      await client.close();
      await embedded.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

describe('the embedded service with LLM_FIRST_BYTE_TIMEOUT_MS', () => {
  it('gives up on a model that never answers once the configured time has passed', async () => {
    const llm = await startSilentLlm();
    const { client, lines, close } = await embeddedWith({
      LLM_URL: llm.url,
      LLM_MODEL: 'silent-model',
      LLM_FIRST_BYTE_TIMEOUT_MS: '150',
    });
    try {
      const session = await expectModelGivenUp(client, llm, lines, 150);
      expect(await client.listMessages(session)).toEqual([]);
    } finally {
      await close();
      await llm.close();
    }
  });
});

describe('the proxy variables', () => {
  const remote = { CHATBRIDGE_SERVICE_URL: 'https://service.example', CHATBRIDGE_API_KEY: 'k' };

  it('are read and checked for a remote service, before anything opens', () => {
    expect(loadConfig({ ...remote, https_proxy: 'proxy.corp:3128' }).proxy).toEqual({
      httpsProxy: 'http://proxy.corp:3128',
    });
    expect(() => loadConfig({ ...remote, HTTPS_PROXY: 'http://proxy.corp:3128/squid' })).toThrow(
      /^HTTPS_PROXY: must be a proxy address/,
    );
  });

  it('are neither read nor checked for the embedded service, which never uses them', () => {
    const env = { HTTPS_PROXY: 'http://proxy.corp:3128/squid' };
    const config = loadConfig(env);
    expect(config.service).toBeUndefined();
    expect(config.proxy).toBeUndefined();
    // No platform configured: `chatbridge start` runs the console chat and reads none.
    expect(configuredPlatforms(env)).toEqual([]);
    expect(() => configuredPlatforms({ ...env, DISCORD_TOKEN: 't' })).toThrow(/^HTTPS_PROXY:/);
  });
});
