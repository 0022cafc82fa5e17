// The proxied transport the adapters share (adapters/shared/outbound.ts): none without a proxy,
// and a FormData body (the SDKs build them with Node's own class) arrives as the same multipart
// form through the project's undici, not as the text "[object FormData]".
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeOutbound, proxiedOutbound } from '../../adapters/shared/outbound.js';
import { startConnectProxy, type ConnectProxy } from '../service/connect-proxy.js';

let proxy: ConnectProxy;
let server: Server;
let url: string;
beforeAll(async () => {
  proxy = await startConnectProxy();
  // Echoes what it received: its content type, then the body as sent.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          type: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`;
});
afterAll(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('proxiedOutbound', () => {
  it('is none without a proxy', () => {
    expect(proxiedOutbound(undefined)).toBeUndefined();
  });

  it('sends a FormData body as its multipart form, through the proxy', async () => {
    const outbound = proxiedOutbound({ httpProxy: proxy.url })!;
    try {
      const form = new FormData();
      form.append('channels', 'C1');
      form.append('file', new Blob(['Refunds take five days.']), 'guide.txt');
      const response = await outbound.fetch(url, { method: 'POST', body: form });
      const echoed = (await response.json()) as { type: string; body: string };
      const boundary = /boundary=(\S+)/.exec(echoed.type)?.[1];
      expect(echoed.type).toMatch(/^multipart\/form-data; boundary=/);
      expect(echoed.body).toContain(`--${boundary}`);
      expect(echoed.body).toContain('name="channels"\r\n\r\nC1');
      expect(echoed.body).toContain('filename="guide.txt"');
      expect(echoed.body).toContain('Refunds take five days.');
      expect(proxy.tunnels.at(-1)).toBe(new URL(url).host);
    } finally {
      await outbound.dispatcher.close();
    }
  });

  it('fails a call whose proxy closes the connection before answering CONNECT, once', async () => {
    let connections = 0;
    const dropping = createTcpServer((socket) => {
      connections++;
      socket.on('error', () => {});
      socket.once('data', () => socket.destroy());
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const port = (dropping.address() as AddressInfo).port;
    const outbound = proxiedOutbound({ httpProxy: `http://127.0.0.1:${port}` })!;
    try {
      // Without the pool's guard undici opens the tunnel again and again until this signal.
      const failed = await outbound.fetch(url, { signal: AbortSignal.timeout(10_000) }).then(
        () => undefined,
        (error: unknown) => error as Error & { cause?: { code?: string; message?: string } },
      );
      expect(failed?.cause?.code).toBe('ECONNRESET');
      expect(failed?.cause?.message).toBe(
        'the proxy closed the connection before answering CONNECT',
      );
      expect(connections).toBe(1);
    } finally {
      await closeOutbound(outbound);
      await new Promise<void>((resolve) => dropping.close(() => resolve()));
    }
  });
});
