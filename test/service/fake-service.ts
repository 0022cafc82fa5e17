// A small HTTP server on loopback for the client tests: records every request (method, path,
// headers, body bytes) and answers with a handler the test sets.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createServiceClient } from '../../src/service/client.js';
import type { ServiceClientConfig } from '../../src/service/api.js';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  text: string;
  json: unknown;
}

export type Handler = (req: Recorded, res: ServerResponse) => void | Promise<void>;

export interface FakeService {
  url: string;
  port: number;
  requests: Recorded[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export const API_KEY = 'sk-test-0123456789abcdef';

export async function startFakeService(initial?: Handler): Promise<FakeService> {
  let handler: Handler = initial ?? ((_req, res) => sendJson(res, 200, {}));
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = body.toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const recorded = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body,
        text,
        json,
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    handle: (h) => {
      handler = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Starts a fake service for the enclosing file or describe block (closed after it, its request
 * log cleared before each test). The returned object is usable from hooks and tests on.
 */
export function useFakeService(initial?: Handler): FakeService {
  let started: FakeService | undefined;
  const current = (): FakeService => {
    if (!started) throw new Error('the fake service starts in beforeAll: use it in hooks or tests');
    return started;
  };
  beforeAll(async () => {
    started = await startFakeService(initial);
  });
  afterAll(() => started?.close());
  beforeEach(() => {
    if (started) started.requests.length = 0;
  });
  return {
    get url() {
      return current().url;
    },
    get port() {
      return current().port;
    },
    get requests() {
      return current().requests;
    },
    handle: (handler) => current().handle(handler),
    close: () => current().close(),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

export function clientFor(service: FakeService, config: Partial<ServiceClientConfig> = {}) {
  return createServiceClient({
    baseUrl: service.url,
    apiKey: API_KEY,
    retryBaseMs: 1,
    ...config,
  });
}

/** A promise with its resolve exposed: lets a test and the fake server take turns. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
