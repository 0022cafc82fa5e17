import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FetchFailedError,
  fetchUrlText,
  isPrivateAddress,
} from '../../../src/local-service/extraction/index.js';
import { onFakeTime } from '../../fake-time.js';
import { buildPdf } from '../knowledge/fixtures.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PAGE_HTML =
  '<html><head><title>Guide</title></head><body><nav>Menu</nav><h1>Setup</h1><p>Install it.</p></body></html>';
const routes: Record<string, Handler> = {
  '/page': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE_HTML);
  },
  '/r1': (_req, res) => res.writeHead(302, { location: '/r2' }).end(),
  '/r2': (_req, res) => res.writeHead(301, { location: `${base}/page` }).end(),
  '/loop': (_req, res) => res.writeHead(307, { location: '/loop' }).end(),
  '/big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no content-length to trust
    for (let i = 0; i < 10; i++) res.write('x'.repeat(500));
    res.end();
  },
  '/hang': () => undefined, // never answers
  '/missing': (_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no'),
  '/image': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('PNG'),
  '/data': (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"plan":"basic"}'),
  '/latin1': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
    res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1
  },
  '/doc.pdf': (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(buildPdf(['PDF body.'])),
  '/to-private': (_req, res) =>
    res.writeHead(302, { location: `http://internal.test:${port}/page` }).end(),
  '/to-loopback': (_req, res) =>
    res.writeHead(302, { location: `http://127.0.0.1:${port}/page` }).end(),
  '/ftp': (_req, res) => res.writeHead(302, { location: 'ftp://example.com/file' }).end(),
};

let server: Server;
let port = 0;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const handler = routes[req.url ?? ''];
    if (handler) handler(req, res);
    else res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('should fail'),
    (e: unknown) => e,
  );

describe('fetchUrlText', () => {
  it('reads an HTML page from loopback (allowed by default) as clean text with its title', async () => {
    const page = await fetchUrlText(`${base}/page`);
    expect(page).toEqual({
      text: '# Setup\n\nInstall it.',
      title: 'Guide',
      finalUrl: `${base}/page`,
      contentType: 'text/html',
      bytes: Buffer.byteLength(PAGE_HTML),
    });
  });

  it('follows a redirect chain (relative and absolute locations)', async () => {
    const page = await fetchUrlText(`${base}/r1`);
    expect(page.finalUrl).toBe(`${base}/page`);
    expect(page.text).toContain('Install it.');
    const error = await failure(fetchUrlText(`${base}/r1`, { maxRedirects: 1 }));
    expect((error as Error).message).toBe('too many redirects (more than 1)');
  });

  it('stops a redirect loop', async () => {
    const error = await failure(fetchUrlText(`${base}/loop`));
    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as Error).message).toBe('too many redirects (more than 5)');
  });

  it('stops reading past the size cap', async () => {
    const error = await failure(fetchUrlText(`${base}/big`, { maxBytes: 1000 }));
    expect((error as Error).message).toBe('response is larger than the 1000-byte limit');
    expect((await fetchUrlText(`${base}/big`, { maxBytes: 5000 })).text).toHaveLength(5000);
  });

  it('times out on a server that never answers', async () => {
    // On fake time, moved on only while loopback I/O is at rest: the 150 ms are virtual.
    await onFakeTime(50, { ioTurns: true }, async (time) => {
      const error = await time.settle(failure(fetchUrlText(`${base}/hang`, { timeoutMs: 150 })));
      expect(error).toBeInstanceOf(FetchFailedError);
      expect((error as Error).message).toBe('timed out after 150 ms');
      expect(time.elapsed()).toBeGreaterThanOrEqual(150);
    });
  });

  it('reports non-2xx statuses and unsupported content types', async () => {
    expect(((await failure(fetchUrlText(`${base}/missing`))) as Error).message).toBe('HTTP 404');
    expect(((await failure(fetchUrlText(`${base}/image`))) as Error).message).toMatch(
      /unsupported content type "image\/png"/,
    );
    expect(((await failure(fetchUrlText('ftp://example.com/x'))) as Error).message).toMatch(
      /only http and https/,
    );
    expect(((await failure(fetchUrlText(`${base}/ftp`))) as Error).message).toMatch(
      /only http and https/,
    );
  });

  it('reads JSON, a declared charset, and a PDF recognised by its path', async () => {
    expect((await fetchUrlText(`${base}/data`)).text).toBe('plan: basic');
    expect((await fetchUrlText(`${base}/latin1`)).text).toBe('café');
    expect((await fetchUrlText(`${base}/doc.pdf`)).text).toBe('PDF body.');
  });

  it('with refusePrivate, refuses loopback by literal address and after DNS resolution', async () => {
    const literal = await failure(fetchUrlText(`${base}/page`, { refusePrivate: true }));
    expect((literal as Error).message).toBe('refused: 127.0.0.1 is a private address');
    const resolved = await failure(
      fetchUrlText(`http://intranet.test:${port}/page`, {
        refusePrivate: true,
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      }),
    );
    expect((resolved as Error).message).toBe(
      'refused: intranet.test resolves to the private address 127.0.0.1',
    );
  });

  it('with refusePrivate, checks every redirect hop (after DNS too)', async () => {
    // Policy for this test: 127.0.0.1 stands in for a public address, everything else is private.
    const options = {
      refusePrivate: true,
      isRefused: (address: string) => address !== '127.0.0.1',
      resolve: async (host: string) => [
        { address: host === 'public.test' ? '127.0.0.1' : '10.0.0.7', family: 4 },
      ],
    };
    const ok = await fetchUrlText(`http://public.test:${port}/page`, options);
    expect(ok.text).toContain('Install it.'); // connected to the address that was checked
    const viaDns = await failure(fetchUrlText(`http://public.test:${port}/to-private`, options));
    expect((viaDns as Error).message).toBe(
      'refused: internal.test resolves to the private address 10.0.0.7',
    );
    const viaLiteral = await failure(fetchUrlText(`${base}/to-loopback`, { refusePrivate: true }));
    expect((viaLiteral as Error).message).toBe('refused: 127.0.0.1 is a private address');
  });
});

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['8.8.8.8', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', false],
    ['[::1]', true],
    ['2606:4700::1111', false],
    ['not-an-ip', true],
    // IPv4 hidden in IPv6: translated, NAT64 (well-known and local-use), 6to4, Teredo, compatible.
    ['::ffff:0:127.0.0.1', true],
    ['::ffff:0:7f00:1', true],
    ['::ffff:0:808:808', false],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::10.0.0.1', true],
    ['64:ff9b::808:808', false],
    ['64:ff9b:1::7f00:1', true],
    ['64:ff9b:1::808:808', true], // local-use NAT64 is a local network whatever it carries
    ['2002:7f00:1::', true],
    ['2002:a00:1::1', true],
    ['2002:c0a8:101::', true],
    ['2002:808:808::1', false],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', true], // Teredo client 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', false], // Teredo client 8.8.8.8
    ['::7f00:1', true],
    ['::808:808', false],
    // Ordinary private and special ranges.
    ['10.255.255.255', true],
    ['172.31.255.255', true],
    ['192.168.0.0', true],
    ['127.255.0.1', true],
    ['100.127.255.255', true],
    ['169.254.0.1', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['240.0.0.1', true],
    ['192.0.2.10', true], // documentation
    ['198.18.0.1', true], // benchmarking
    ['fc00::1', true],
    ['fe80::1%eth0', true],
    ['ff02::1', true],
    ['2001:db8::1', true], // documentation
    // Public.
    ['1.1.1.1', false],
    ['93.184.216.34', false],
    ['172.15.255.255', false],
    ['100.128.0.1', false],
    ['2a00:1450:4001:80b::200e', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});
