// The proxy variables: a remote service reached through an HTTP CONNECT proxy on loopback
// (undici's EnvHttpProxyAgent), plain and over TLS, answer streams included.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient, proxyFromEnv } from '../../src/service/index.js';
import { startConnectProxy, type ConnectProxy } from './connect-proxy.js';
import { API_KEY, deferred, sendJson, useFakeService } from './fake-service.js';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** Answers held open until `release` (set per test); none by default. */
let holdAnswers: Promise<void> | undefined;
let answersOpen = 0;
const service = useFakeService(async (req, res) => {
  if (req.url.endsWith('/stream')) {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('through ');
    answersOpen++;
    await holdAnswers;
    res.end('the proxy');
  } else sendJson(res, 200, []);
});

let proxy: ConnectProxy;
beforeAll(async () => {
  proxy = await startConnectProxy();
});
beforeEach(() => {
  proxy.tunnels.length = 0;
  holdAnswers = undefined;
  answersOpen = 0;
});
afterAll(() => proxy.close());

async function readAll(stream: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const piece of stream) text += piece;
  return text;
}

describe('proxyFromEnv', () => {
  it('is undefined without proxy variables (blank ones count as unset)', () => {
    expect(proxyFromEnv({})).toBeUndefined();
    expect(proxyFromEnv({ HTTPS_PROXY: ' ', http_proxy: '' })).toBeUndefined();
    // A blank lower-case one (a compose file passing on an unset variable) hides nothing.
    expect(
      proxyFromEnv({
        https_proxy: '',
        HTTPS_PROXY: 'http://upper:1',
        no_proxy: ' ',
        NO_PROXY: 'x',
      }),
    ).toEqual({ httpsProxy: 'http://upper:1', noProxy: 'x' });
  });

  it('reads either case, the lower-case one first, as undici does', () => {
    expect(
      proxyFromEnv({ https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:1', NO_PROXY: 'x' }),
    ).toEqual({ httpsProxy: 'http://a:1', noProxy: 'x' });
  });

  it('reads an address without a scheme as http, as curl does', () => {
    expect(proxyFromEnv({ HTTPS_PROXY: 'proxy.corp:3128' })).toEqual({
      httpsProxy: 'http://proxy.corp:3128',
    });
    expect(proxyFromEnv({ ALL: 'x', https_proxy: 'socks5://p:1080' })).toEqual({
      httpsProxy: 'socks5://p:1080',
    });
    // socks5h (curl's "the proxy resolves names") is what undici's socks5 does anyway.
    expect(proxyFromEnv({ HTTPS_PROXY: 'SOCKS5H://p:1080' })).toEqual({
      httpsProxy: 'socks5://p:1080',
    });
    expect(proxyFromEnv({ HTTP_PROXY: 'http://[::1]:3128/' })).toEqual({
      httpProxy: 'http://[::1]:3128',
    });
  });

  it('refuses a broken address, naming the variable and never repeating the value', () => {
    for (const [name, value] of [
      ['HTTPS_PROXY', 'http://user:s3cret@'],
      ['http_proxy', 'ftp://user:s3cret@proxy:21'],
      ['HTTP_PROXY', 'user:s3cret@proxy:not-a-port'],
      // Parses, but names no host: undici would fail at the first call.
      ['HTTPS_PROXY', 'socks5://user:s3cret@'],
      // A path, query or fragment is a typo; undici refuses them later, naming nothing.
      ['HTTPS_PROXY', 'http://user:s3cret@proxy:3128/squid'],
      ['HTTPS_PROXY', 'http://user:s3cret@proxy:3128?x=1'],
      ['HTTPS_PROXY', 'http://user:s3cret@proxy:3128#top'],
      ['HTTPS_PROXY', 'http:/user:s3cret@proxy:3128'],
    ] as const) {
      let caught: unknown;
      try {
        proxyFromEnv({ [name]: value });
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: 'chatbridge_config_invalid' });
      const message = (caught as Error).message;
      expect(message).toMatch(new RegExp(`^${name}: must be a proxy address`));
      expect(message).not.toContain('s3cret');
    }
  });

  it('carries every call, the answer stream included, through the proxy', async () => {
    for (const name of ['HTTP_PROXY', 'http_proxy']) {
      proxy.tunnels.length = 0;
      const client = createServiceClient({
        baseUrl: service.url,
        apiKey: API_KEY,
        proxy: proxyFromEnv({ [name]: proxy.url }),
      });
      try {
        expect(await client.listChatbots()).toEqual([]);
        expect(await readAll(await client.streamMessage('s1', { query: 'q' }))).toBe(
          'through the proxy',
        );
        // One tunnel for the ordinary calls' pool, one for the answer streams'.
        expect(proxy.tunnels).toEqual([new URL(service.url).host, new URL(service.url).host]);
      } finally {
        await client.close();
      }
    }
  });

  it('streams every answer at once through the proxy: none waits for a connection', async () => {
    const count = 20;
    const release = deferred();
    holdAnswers = release.promise;
    const client = createServiceClient({
      baseUrl: service.url,
      apiKey: API_KEY,
      connections: 2,
      proxy: proxyFromEnv({ HTTP_PROXY: proxy.url }),
    });
    try {
      const streams = await Promise.all(
        Array.from({ length: count }, () => client.streamMessage('s1', { query: 'q' })),
      );
      // Every answer has its headers and first words while all of them are still open.
      const firsts = await Promise.all(streams.map((s) => s[Symbol.asyncIterator]().next()));
      expect(firsts.map((first) => first.value)).toEqual(Array(count).fill('through '));
      expect(answersOpen).toBe(count);
      release.resolve();
      expect(await Promise.all(streams.map(readAll))).toEqual(Array(count).fill('the proxy'));
      expect(proxy.tunnels).toHaveLength(count);
    } finally {
      release.resolve();
      await client.close();
    }
  });

  it('leaves hosts in NO_PROXY alone', async () => {
    const client = createServiceClient({
      baseUrl: service.url,
      apiKey: API_KEY,
      proxy: proxyFromEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }),
    });
    try {
      expect(await client.listChatbots()).toEqual([]);
      expect(await readAll(await client.streamMessage('s1', { query: 'q' }))).toBe(
        'through the proxy',
      );
      expect(proxy.tunnels).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('trusts the authorities in `ca` for an https service behind the proxy', async () => {
    const tls = createHttpsServer(
      { key: fixture('localhost-key.pem'), cert: fixture('localhost-cert.pem') },
      (req, res) => {
        req.resume();
        res.writeHead(200, {
          'content-type': req.url?.endsWith('/stream') ? 'text/plain' : 'application/json',
        });
        res.end(req.url?.endsWith('/stream') ? 'secure answer' : '[]');
      },
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const settings = proxyFromEnv({ HTTPS_PROXY: proxy.url });
    const trusting = createServiceClient({
      baseUrl: url,
      apiKey: API_KEY,
      proxy: settings,
      ca: fixture('localhost-cert.pem'),
    });
    const doubting = createServiceClient({
      baseUrl: url,
      apiKey: API_KEY,
      proxy: settings,
      maxRetries: 0,
    });
    try {
      expect(await trusting.listChatbots()).toEqual([]);
      expect(await readAll(await trusting.streamMessage('s1', { query: 'q' }))).toBe(
        'secure answer',
      );
      await expect(doubting.listChatbots()).rejects.toMatchObject({ kind: 'unavailable' });
      expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(url).host]));
    } finally {
      await trusting.close();
      await doubting.close();
      tls.closeAllConnections();
      await new Promise<void>((resolve) => tls.close(() => resolve()));
    }
  });
});
