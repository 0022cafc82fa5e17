import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, maskSecrets } from '../src/log.js';

const API_KEY = 'sk-live-9f8e7d6c5b4a39281706';
// Fake tokens of the real shapes, assembled here so no token-shaped literal sits in the repo.
const SLACK_BOT = ['xoxb', '1234567890', '0987654321', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-');
const SLACK_APP = ['xapp', '1', 'A0123456789', '1234567890123', 'abcdef0123456789abcdef'].join('-');
const DISCORD = [
  'MTA5ODc2NTQzMjEwOTg3NjU0',
  'GhIjKl',
  'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab',
].join('.');
const BEARER_IN_ERROR = 'eyJhbGciOiJIUzI1NiJ9.secretpayload.sig';
const SECRETS = [API_KEY, SLACK_BOT, SLACK_APP, DISCORD, BEARER_IN_ERROR];

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  // pino's DestinationStream only needs write(); a Writable is one.
  const logger = createLogger({ level: 'trace', destination, secrets: [API_KEY] });
  return { logger, output: () => lines.join('') };
}

describe('log redaction', () => {
  it('no secret reaches a log line, wherever it sits', () => {
    const { logger, output } = capture();
    logger.info({ headers: { Authorization: `Bearer ${API_KEY}` } }, 'request');
    logger.info({ req: { headers: { authorization: `Bearer ${API_KEY}` } } }, 'nested request');
    logger.info({ call: { options: { headers: { Authorization: `Bearer ${API_KEY}` } } } }, 'deep');
    logger.info({ config: { service: { apiKey: API_KEY, url: 'http://x' } } }, 'config');
    logger.info({ apiKey: API_KEY, botToken: SLACK_BOT, appToken: SLACK_APP }, 'tokens by key');
    logger.info({ env: { SLACK_BOT_TOKEN: SLACK_BOT, DISCORD_TOKEN: DISCORD } }, 'env');
    logger.info({ discord: { client: { token: DISCORD } } }, 'discord client');
    logger.info(
      { note: `the slack token is ${SLACK_BOT} and the app token ${SLACK_APP}` },
      'in a value',
    );
    logger.info({ list: [`Bearer ${API_KEY}`, { password: 'hunter2-long-password' }] }, 'array');
    logger.warn(`connecting with ${DISCORD} now`);
    logger.warn('key %s in a format argument', API_KEY);
    logger.warn(`raw key in text ${API_KEY}`);
    const error = new Error(`request failed: Authorization: Bearer ${BEARER_IN_ERROR}`);
    logger.error(error);
    logger.error({ err: error }, 'wrapped');
    logger.error({ err: new Error('outer', { cause: new Error(`inner ${SLACK_BOT}`) }) }, 'cause');
    const text = output();
    for (const secret of [...SECRETS, 'hunter2-long-password']) expect(text).not.toContain(secret);
    // The lines are still useful: messages and harmless fields survive.
    expect(text).toContain('"msg":"request"');
    expect(text).toContain('http://x');
    expect(text).toContain('request failed: Authorization: [Redacted]');
    expect(text).toContain('[Redacted]');
    expect(text.trim().split('\n')).toHaveLength(15);
  });

  it('keeps counts that merely look like token fields', () => {
    const { logger, output } = capture();
    logger.info({ tokens: 1234, file_size: 10 }, 'source');
    expect(output()).toContain('"tokens":1234');
  });

  it('survives circular objects', () => {
    const { logger, output } = capture();
    const loop: Record<string, unknown> = { apiKey: API_KEY };
    loop.self = loop;
    logger.info({ loop }, 'circular');
    expect(output()).not.toContain(API_KEY);
    expect(output()).toContain('circular');
  });

  it('maskSecrets masks token shapes in free text', () => {
    expect(maskSecrets(`a ${SLACK_BOT} b Bearer abc.def c ${DISCORD}`)).toBe(
      'a [Redacted] b [Redacted] c [Redacted]',
    );
  });

  it('maskSecrets masks secret-named fields written into text (a client logging its request body)', () => {
    // Bolt's Web API client at debug level logs the OAuth code exchange's body like this.
    expect(
      maskSecrets(
        'http request body: {"code":"c-1","client_id":"11.22","client_secret":"s3cr3t-v4lue"}',
      ),
    ).toBe('http request body: {"code":"c-1","client_id":"11.22","client_secret":"[Redacted]"}');
    expect(maskSecrets('code=c-1&client_secret=s3cr3t-v4lue&refresh_token=r3fr3sh')).toBe(
      'code=c-1&client_secret=[Redacted]&refresh_token=[Redacted]',
    );
    expect(maskSecrets("password: 'hunter22', ok")).toBe("password: '[Redacted]', ok");
    // Words about secrets are not secrets.
    expect(maskSecrets('slack: bot token revoked; installation deleted')).toBe(
      'slack: bot token revoked; installation deleted',
    );
  });
});

describe('child loggers', () => {
  it('redact their bindings, down to grandchildren', () => {
    const { logger, output } = capture();
    const child = logger.child({ token: SLACK_BOT, team: 'T1' });
    child.info('child line');
    child.child({ headers: { authorization: `Bearer ${API_KEY}` } }).info('grandchild line');
    const text = output();
    expect(text).not.toContain(SLACK_BOT);
    expect(text).not.toContain(API_KEY);
    expect(text).toContain('"team":"T1"');
    expect(text).toContain('grandchild line');
  });
});

describe('lists of keys', () => {
  it('redacts apiKeys, keys and privateKey fields and each key of CHATBRIDGE_SERVICE_API_KEYS', () => {
    const lines: string[] = [];
    const previous = process.env.CHATBRIDGE_SERVICE_API_KEYS;
    process.env.CHATBRIDGE_SERVICE_API_KEYS = 'first-service-key-123, second-service-key-456';
    try {
      const logger = createLogger({ destination: { write: (line: string) => lines.push(line) } });
      logger.info(
        { apiKeys: ['k-aaaaaaaaaaaa'], keys: 'k-bbbbbbbbbbbb', privateKey: 'k-cccccccccccc' },
        'x',
      );
      logger.info('started with second-service-key-456 and first-service-key-123');
    } finally {
      if (previous === undefined) delete process.env.CHATBRIDGE_SERVICE_API_KEYS;
      else process.env.CHATBRIDGE_SERVICE_API_KEYS = previous;
    }
    const out = lines.join('');
    for (const secret of [
      'k-aaaaaaaaaaaa',
      'k-bbbbbbbbbbbb',
      'k-cccccccccccc',
      'first-service-key-123',
      'second-service-key-456',
    ]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('[Redacted]');
  });
});

describe('proxy passwords', () => {
  it('masks the password of a proxy address, as written and as sent', () => {
    const lines: string[] = [];
    const previous = process.env.https_proxy;
    process.env.https_proxy = 'http://alice:pr%40xy-passw0rd@proxy.corp:3128';
    try {
      const logger = createLogger({ destination: { write: (line: string) => lines.push(line) } });
      logger.warn('tunnel refused for alice:pr@xy-passw0rd and pr%40xy-passw0rd');
    } finally {
      if (previous === undefined) delete process.env.https_proxy;
      else process.env.https_proxy = previous;
    }
    const out = lines.join('');
    expect(out).toContain('alice:');
    expect(out).not.toContain('passw0rd');
  });
});
