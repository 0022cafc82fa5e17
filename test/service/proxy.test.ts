// The proxy variables: a remote service reached through an HTTP CONNECT proxy on loopback.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient, proxyFromEnv } from '../../src/service/index.js';
import { API_KEY, sendJson, useFakeService } from './fake-service.js';

const service = useFakeService((req, res) => {
  if (req.url.endsWith('/stream')) {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('through ');
    res.end('the proxy');
  } else sendJson(res, 200, []);
});

/** Opens a tunnel per CONNECT and records the targets asked for. */
let proxyUrl = '';
const tunnels: string[] = [];
const sockets = new Set<Socket>();
const proxy = createServer((socket) => {
  sockets.add(socket);
  socket.on('error', () => {});
  socket.once('data', (head: Buffer) => {
    const target = /^CONNECT (\S+) HTTP\/1\.1/.exec(head.toString('latin1'))?.[1];
    if (!target) return void socket.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
    tunnels.push(target);
    const [host, port] = target.split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      socket.pipe(upstream).pipe(socket);
    });
    sockets.add(upstream);
    upstream.on('error', () => socket.destroy());
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
});

describe('proxyFromEnv', () => {
  it('is undefined without proxy variables (blank ones count as unset)', () => {
    expect(proxyFromEnv({})).toBeUndefined();
    expect(proxyFromEnv({ HTTPS_PROXY: ' ', http_proxy: '' })).toBeUndefined();
  });

  it('carries every call, the answer stream included, through the proxy', async () => {
    for (const name of ['HTTP_PROXY', 'http_proxy']) {
      tunnels.length = 0;
      const proxy = proxyFromEnv({ [name]: proxyUrl });
      const client = createServiceClient({ baseUrl: service.url, apiKey: API_KEY, proxy });
      try {
        expect(await client.listChatbots()).toEqual([]);
        let text = '';
        for await (const piece of await client.streamMessage('s1', { query: 'q' })) text += piece;
        expect(text).toBe('through the proxy');
        expect(tunnels.length).toBeGreaterThan(0);
        expect(new Set(tunnels)).toEqual(new Set([new URL(service.url).host]));
      } finally {
        await client.close();
      }
    }
  });

  it('leaves hosts in NO_PROXY alone', async () => {
    tunnels.length = 0;
    const proxy = proxyFromEnv({ HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' });
    const client = createServiceClient({ baseUrl: service.url, apiKey: API_KEY, proxy });
    try {
      expect(await client.listChatbots()).toEqual([]);
      expect(tunnels).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
