// The CLI's way to a remote https service: a private authority through NODE_EXTRA_CA_CERTS (read
// by Node at start, hence a child process) and the proxy variables, as a user sets them.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run-cli.js';
import { startConnectProxy, type ConnectProxy } from './connect-proxy.js';
import { API_KEY } from './fake-service.js';

const fixturePath = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

let server: Server;
let serviceUrl = '';
let proxy: ConnectProxy;
let cwd = '';
const seen: string[] = [];

beforeAll(async () => {
  server = createHttpsServer(
    {
      key: readFileSync(fixturePath('localhost-key.pem')),
      cert: readFileSync(fixturePath('localhost-cert.pem')),
    },
    (req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serviceUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy = await startConnectProxy();
  cwd = await mkdtemp(join(tmpdir(), 'chatbridge-tls-'));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await proxy.close();
  await rm(cwd, { recursive: true, force: true });
});

const listChatbots = (env: Record<string, string>) =>
  runCli(['admin', 'chatbot', 'list'], {
    cwd,
    env: {
      CHATBRIDGE_DATA_DIR: cwd,
      CHATBRIDGE_STORE: 'memory://',
      CHATBRIDGE_SERVICE_URL: serviceUrl,
      CHATBRIDGE_API_KEY: API_KEY,
      ...env,
    },
  });

describe('chatbridge and a remote https service', () => {
  it('refuses a certificate from an authority nobody trusts', async () => {
    seen.length = 0;
    const result = await listChatbots({});
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/SELF_SIGNED_CERT/);
    expect(seen).toEqual([]);
  });

  it('trusts the authority named by NODE_EXTRA_CA_CERTS', async () => {
    seen.length = 0;
    const result = await listChatbots({ NODE_EXTRA_CA_CERTS: fixturePath('localhost-cert.pem') });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen).toEqual(['GET /api/v1/chatbots']);
  });

  it('goes through HTTPS_PROXY, still trusting NODE_EXTRA_CA_CERTS inside the tunnel', async () => {
    seen.length = 0;
    proxy.tunnels.length = 0;
    const result = await listChatbots({
      NODE_EXTRA_CA_CERTS: fixturePath('localhost-cert.pem'),
      HTTPS_PROXY: proxy.url,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen).toEqual(['GET /api/v1/chatbots']);
    expect(proxy.tunnels).toEqual([new URL(serviceUrl).host]);
  });
});
