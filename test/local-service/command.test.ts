import { resolve } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import {
  runServiceCommand,
  serviceOptionsFrom,
  startLocalService,
} from '../../src/local-service/index.js';
import { createServiceClient } from '../../src/service/index.js';
import { expectModelGivenUp, startSilentLlm } from './silent-llm.js';
import { sharedConverters } from '../converters.js';

describe('service options', () => {
  it('reads flags, with repeated keys, over the environment', () => {
    const options = serviceOptionsFrom(
      [
        '--port',
        '9000',
        '--api-key',
        'one',
        '--api-key',
        'two',
        '--store',
        'memory://',
        '--host',
        '0.0.0.0',
        '--stream-delay-ms',
        '25',
        '--refuse-private-urls',
        '--max-upload-bytes',
        '2048',
        '--llm-url',
        'http://127.0.0.1:11434/v1',
        '--llm-model',
        'llama3',
        '--llm-first-byte-timeout-ms',
        '2500',
        '--llm-idle-timeout-ms',
        '45000',
        '--fault-status',
        '503',
        '--fault-cut-after',
        '4',
      ],
      {
        CHATBRIDGE_SERVICE_PORT: '1234',
        CHATBRIDGE_SERVICE_API_KEYS: 'env-key',
        LLM_API_KEY: 'sk-llm',
        CHATBRIDGE_SERVICE_LLM_FIRST_BYTE_TIMEOUT_MS: '1',
      },
    );
    expect(options).toMatchObject({
      port: 9000,
      apiKeys: ['one', 'two'],
      storeUrl: 'memory://',
      host: '0.0.0.0',
      streamDelayMs: 25,
      refusePrivateUrls: true,
      maxUploadBytes: 2048,
      llm: {
        url: 'http://127.0.0.1:11434/v1',
        model: 'llama3',
        apiKey: 'sk-llm',
        firstByteTimeoutMs: 2500,
        idleTimeoutMs: 45_000,
      },
      faults: { failStatus: 503, cutAfterPieces: 4 },
    });
  });

  it('falls back to the environment, then to defaults (SQLite under ./data)', () => {
    const fromEnv = serviceOptionsFrom([], {
      CHATBRIDGE_SERVICE_API_KEYS: 'a, b ,',
      CHATBRIDGE_SERVICE_PORT: '8001',
      CHATBRIDGE_SERVICE_REFUSE_PRIVATE_URLS: 'true',
      CHATBRIDGE_SERVICE_DATA_DIR: '/tmp/ls-data',
    });
    expect(fromEnv).toMatchObject({
      apiKeys: ['a', 'b'],
      port: 8001,
      host: '127.0.0.1',
      refusePrivateUrls: true,
    });
    expect(fromEnv.storeUrl).toBe('sqlite:///tmp/ls-data/local-service.sqlite');
    const defaults = serviceOptionsFrom(['--api-key', 'k'], {});
    expect(defaults.port).toBe(8787);
    expect(defaults.storeUrl).toBe(`sqlite://${resolve('data', 'local-service.sqlite')}`);
    expect(defaults.llm).toBeUndefined();
  });

  it('reads the model timeouts from the environment, and leaves them unset by default', () => {
    const base = { CHATBRIDGE_SERVICE_API_KEYS: 'k', CHATBRIDGE_SERVICE_LLM_URL: 'http://x/v1' };
    const fromEnv = serviceOptionsFrom([], {
      ...base,
      CHATBRIDGE_SERVICE_LLM_MODEL: 'm',
      CHATBRIDGE_SERVICE_LLM_FIRST_BYTE_TIMEOUT_MS: '1200',
      CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS: '3600000',
    });
    expect(fromEnv.llm).toMatchObject({ firstByteTimeoutMs: 1200, idleTimeoutMs: 3_600_000 });
    const unset = serviceOptionsFrom(['--llm-model', 'm'], base);
    expect(unset.llm).toEqual({
      url: 'http://x/v1',
      model: 'm',
      apiKey: undefined,
      firstByteTimeoutMs: undefined,
      idleTimeoutMs: undefined,
    });
  });

  it('reads the extraction limits from flags or the environment, and checks them', () => {
    const flags = ['--api-key', 'k', '--extract-timeout-ms', '5000', '--extract-memory-mb', '256'];
    expect(serviceOptionsFrom(flags, {}).extraction).toEqual({ timeoutMs: 5000, memoryMb: 256 });
    const env = {
      CHATBRIDGE_SERVICE_API_KEYS: 'k',
      CHATBRIDGE_SERVICE_EXTRACT_TIMEOUT_MS: '30000',
      CHATBRIDGE_SERVICE_EXTRACT_MEMORY_MB: '1024',
    };
    expect(serviceOptionsFrom([], env).extraction).toEqual({ timeoutMs: 30_000, memoryMb: 1024 });
    expect(serviceOptionsFrom(['--api-key', 'k'], {}).extraction).toEqual({
      timeoutMs: undefined,
      memoryMb: undefined,
    });
    expect(() => serviceOptionsFrom([...flags, '--extract-memory-mb', '64'], {})).toThrow(
      /--extract-memory-mb: must be a whole number from 128 to 65536/,
    );
    expect(() => serviceOptionsFrom([...flags, '--extract-timeout-ms', '5s'], {})).toThrow(
      /--extract-timeout-ms: must be a whole number from 100 to 3600000/,
    );
  });

  it.each([
    [[], /--api-key/],
    [['--api-key', 'k', '--port', '70000'], /--port: must be a whole number from 0 to 65535/],
    [['--api-key', 'k', '--stream-delay-ms', 'soon'], /--stream-delay-ms/],
    [['--api-key', 'k', '--llm-url', 'http://x'], /--llm-model/],
    [['--api-key', 'k', '--fault-status', '200'], /--fault-status/],
    [['--api-key', 'k', '--bogus'], /bogus/],
    // The in-memory search index and its bound are gone: the flag is refused by name.
    [['--api-key', 'k', '--max-indexed-chunks', '5'], /max-indexed-chunks/],
    ...['0', '-5', 'abc', '1.5', '1e3', '3600001'].flatMap((bad) =>
      ['--llm-first-byte-timeout-ms', '--llm-idle-timeout-ms'].map((flag): [string[], RegExp] => [
        ['--api-key', 'k', '--llm-url', 'http://x/v1', '--llm-model', 'm', `${flag}=${bad}`],
        new RegExp(`${flag}: must be a whole number from 1 to 3600000`),
      ]),
    ),
  ])('refuses %j', async (argv, message) => {
    const errors: string[] = [];
    const code = await runServiceCommand(
      argv,
      {},
      { err: (line) => errors.push(line), out: () => undefined },
    );
    expect(code).toBe(2);
    expect(errors.join('\n')).toMatch(message);
  });

  it.each([
    ['CHATBRIDGE_SERVICE_LLM_FIRST_BYTE_TIMEOUT_MS', '0'],
    ['CHATBRIDGE_SERVICE_LLM_FIRST_BYTE_TIMEOUT_MS', '1.5'],
    ['CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS', '-5'],
    ['CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS', 'abc'],
    ['CHATBRIDGE_SERVICE_PORT', '0x10'],
  ])('refuses %s=%s naming the variable it came from', async (name, bad) => {
    const errors: string[] = [];
    const code = await runServiceCommand(
      ['--llm-url', 'http://x/v1', '--llm-model', 'm'],
      { CHATBRIDGE_SERVICE_API_KEYS: 'k', [name]: bad },
      { err: (line) => errors.push(line), out: () => undefined },
    );
    expect(code).toBe(2);
    expect(errors[0]).toMatch(new RegExp(`^chatbridge service: ${name}: must be a whole number`));
  });
});

describe('--llm-first-byte-timeout-ms', () => {
  it('ends the wait for a model that never answers at the configured time', async () => {
    const llm = await startSilentLlm();
    const options = serviceOptionsFrom(
      [
        '--port=0',
        '--api-key=k-timeout-0123',
        '--store=memory://',
        `--llm-url=${llm.url}`,
        '--llm-model=silent-model',
        '--llm-first-byte-timeout-ms=150',
      ],
      {},
    );
    // What runServiceCommand does, with the log lines kept to be read.
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (l) => lines.push(l) } });
    const service = await startLocalService({
      ...options,
      logger,
      extractionPool: sharedConverters,
    });
    const client = createServiceClient({
      baseUrl: service.url,
      apiKey: 'k-timeout-0123',
      maxRetries: 0,
    });
    try {
      await expectModelGivenUp(client, llm, lines, 150);
    } finally {
      await client.close();
      await service.close();
      await llm.close();
    }
  });
});

describe('runServiceCommand', () => {
  it('prints one line with its address, serves, and stops when told', async () => {
    const lines: string[] = [];
    const stop = new AbortController();
    let announce!: () => void;
    const ready = new Promise<void>((r) => (announce = r));
    const running = runServiceCommand(
      ['--port', '0', '--api-key', 'secret-key-1', '--store', 'memory://'],
      {},
      {
        out: (line) => {
          lines.push(line);
          announce();
        },
        signal: stop.signal,
      },
    );
    await ready;
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('secret-key-1');
    const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(lines[0]!)?.[1];
    expect(url).toBeDefined();
    const res = await request(`${url}/api/v1/chatbots`, {
      headers: { authorization: 'Bearer secret-key-1' },
    });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual([]);
    stop.abort();
    expect(await running).toBe(0);
    await expect(request(`${url}/api/v1/chatbots`)).rejects.toThrow();
  });
  // As its own process, stopping cleanly (exit 0) on SIGTERM: processes.test.ts.
});
