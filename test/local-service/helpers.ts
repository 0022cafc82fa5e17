// Shared by the local service tests: a service on a random loopback port, a client per key,
// and a raw HTTP helper for what the client refuses to send (bad values, bad JSON).
import { FormData, request } from 'undici';
import { createServiceClient } from '../../src/service/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import {
  startLocalService,
  type LocalService,
  type LocalServiceOptions,
} from '../../src/local-service/index.js';
import { sharedConverters } from '../converters.js';

export const KEY_A = 'key-alpha-0123456789';
export const KEY_B = 'key-bravo-9876543210';

export interface Harness {
  service: LocalService;
  client: ServiceClient;
  clientFor(key: string): ServiceClient;
  raw(method: string, path: string, body?: unknown, init?: RawInit): Promise<RawResponse>;
  close(): Promise<void>;
}

export interface RawInit {
  key?: string | null;
  contentType?: string;
  /** Sent as is (not JSON-encoded). */
  rawBody?: string | Buffer | FormData;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function startHarness(options: Partial<LocalServiceOptions> = {}): Promise<Harness> {
  const service = await startLocalService({
    apiKeys: [KEY_A, KEY_B],
    storeUrl: 'memory://',
    // The worker's converter processes (../converters.ts), unless the test sets their limits.
    ...(options.extraction === undefined ? { extractionPool: sharedConverters } : {}),
    ...options,
  });
  const clients: ServiceClient[] = [];
  const clientFor = (key: string) => {
    const client = createServiceClient({ baseUrl: service.url, apiKey: key, maxRetries: 0 });
    clients.push(client);
    return client;
  };
  const raw = async (method: string, path: string, body?: unknown, init: RawInit = {}) => {
    const headers: Record<string, string> = {};
    const key = init.key === undefined ? KEY_A : init.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | Buffer | FormData | undefined = init.rawBody;
    if (payload === undefined && body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !(payload instanceof FormData)) {
      headers['content-type'] = init.contentType ?? 'application/json';
    }
    const response = await request(`${service.url}${path}`, {
      method: method as 'GET',
      headers,
      body: payload,
    });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text, json };
  };
  return {
    service,
    client: clientFor(KEY_A),
    clientFor,
    raw,
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await service.close();
    },
  };
}

/** Reads a whole answer stream, keeping the pieces as they arrived. */
export async function readPieces(stream: AsyncIterable<string>): Promise<string[]> {
  const pieces: string[] = [];
  for await (const piece of stream) pieces.push(piece);
  return pieces;
}
