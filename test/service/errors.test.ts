import { connect, createServer } from 'node:net';
import { Agent } from 'undici';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/service/client.js';
import { ServiceError } from '../../src/service/errors.js';
import { onFakeTime } from '../fake-time.js';
import { API_KEY, clientFor, sendJson, useFakeService } from './fake-service.js';

const service = useFakeService();

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as ServiceError,
  );

/** A port on loopback with nothing listening. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('status mapping', () => {
  const table: Array<[number, string]> = [
    [400, 'validation'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'not_found'],
    [405, 'not_found'],
    [409, 'conflict'],
    [413, 'validation'],
    [415, 'validation'],
    [422, 'validation'],
    [429, 'rate_limited'],
    [500, 'unavailable'],
    [503, 'unavailable'],
  ];
  for (const [status, kind] of table) {
    it(`${status} → ${kind}`, async () => {
      const client = clientFor(service, { maxRetries: 0 });
      service.handle((_req, res) => sendJson(res, status, { error: { message: 'nope' } }));
      const error = await caught(client.listChatbots());
      expect(error).toBeInstanceOf(ServiceError);
      expect(error.kind).toBe(kind);
      expect(error.status).toBe(status);
      expect(error.method).toBe('GET');
      expect(error.path).toBe('/api/v1/chatbots');
      expect(error.json).toEqual({ error: { message: 'nope' } });
      await client.close();
    });
  }

  it('401 → auth, and no message or field carries the key', async () => {
    const client = clientFor(service);
    // A careless server echoes the header back.
    service.handle((req, res) =>
      sendJson(res, 401, { error: { message: `bad key ${req.headers.authorization}` } }),
    );
    const error = await caught(client.listAgents('cb1'));
    expect(error.kind).toBe('auth');
    expect(service.requests).toHaveLength(1); // never retried
    const everything = JSON.stringify({ ...error, message: error.message, stack: error.stack });
    expect(everything).not.toContain(API_KEY);
    expect(error.message).toContain('bad key');
    await client.close();
  });

  it('an HTML 500 body → unavailable with the body text kept', async () => {
    const client = clientFor(service, { maxRetries: 0 });
    const html = '<html><body><h1>500 Internal Server Error</h1></body></html>';
    service.handle((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(html);
    });
    const error = await caught(client.listChatbots());
    expect(error.kind).toBe('unavailable');
    expect(error.body).toBe(html);
    expect(error.json).toBeUndefined();
    expect(error.message).not.toContain('<html>');
    await client.close();
  });

  it('a plain-text refusal is the message', async () => {
    const client = clientFor(service);
    service.handle((_req, res) => {
      res.writeHead(415, { 'content-type': 'text/plain' });
      res.end('file type not allowed');
    });
    const error = await caught(
      client.uploadSource('cb1', { file: new Uint8Array([1]), file_name: 'x.exe' }),
    );
    expect(error.kind).toBe('validation');
    expect(error.message).toMatch(/^file type not allowed/);
    await client.close();
  });

  it('400 names the field from {error:{field}}', async () => {
    const client = clientFor(service);
    service.handle((_req, res) =>
      sendJson(res, 400, {
        error: { code: 'validation', message: 'name: too long', field: 'name' },
      }),
    );
    const error = await caught(client.createChatbot({ name: 'x' }));
    expect(error.kind).toBe('validation');
    expect(error.field).toBe('name');
    expect(error.message).toMatch(/^name: too long/);
    await client.close();
  });

  it('409 on upload and url add exposes the existing data source, normalised', async () => {
    const client = clientFor(service);
    const existing = { uuid: 'ds9', title: 'Old', status: 'error:token', meta_json: '{"a":1}' };
    service.handle((_req, res) => sendJson(res, 409, existing));
    const upload = await caught(
      client.uploadSource('cb1', { file: new Uint8Array([1]), file_name: 'a.pdf' }),
    );
    expect(upload.kind).toBe('conflict');
    expect(upload.existing).toMatchObject({ uuid: 'ds9', state: 'failed', meta: { a: 1 } });
    service.handle((_req, res) =>
      sendJson(res, 409, { error: 'duplicate', data_source: existing }),
    );
    const url = await caught(client.addUrlSource('cb1', { url: 'https://e.com' }));
    expect(url.existing?.uuid).toBe('ds9');
    await client.close();
  });

  it('429 carries the message of the body and Retry-After (seconds or date)', async () => {
    const client = clientFor(service);
    service.handle((_req, res) =>
      sendJson(res, 429, { error: { message: 'Please wait.' } }, { 'retry-after': '7' }),
    );
    const a = await caught(client.listChatbots());
    expect(a).toMatchObject({ kind: 'rate_limited', message: 'Please wait.', retryAfterMs: 7000 });
    const when = new Date(Date.now() + 60_000).toUTCString();
    service.handle((_req, res) => sendJson(res, 429, 'slow', { 'retry-after': when }));
    const b = await caught(client.listChatbots());
    expect(b.retryAfterMs).toBeGreaterThan(50_000);
    expect(b.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(service.requests).toHaveLength(2); // 429 is not retried
    await client.close();
  });

  it('an unparseable or wrongly shaped success body → protocol', async () => {
    const client = clientFor(service);
    service.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    });
    expect((await caught(client.listChatbots())).kind).toBe('protocol');
    service.handle((_req, res) => sendJson(res, 200, { data: [] }));
    const notList = await caught(client.listChatbots());
    expect(notList.kind).toBe('protocol');
    expect(notList.message).toMatch(/list/);
    service.handle((_req, res) => sendJson(res, 200, [1, 2]));
    expect((await caught(client.createSession('cb1'))).kind).toBe('protocol');
    await client.close();
  });
});

describe('retries', () => {
  const failTimes = (times: number, status: number) => {
    let left = times;
    service.handle((_req, res) => {
      if (left-- > 0) sendJson(res, status, { error: { message: 'busy' } });
      else sendJson(res, 200, []);
    });
  };

  it('a GET answered 503 twice then 200 is sent three times', async () => {
    const client = clientFor(service);
    failTimes(2, 503);
    await expect(client.listChatbots()).resolves.toEqual([]);
    expect(service.requests).toHaveLength(3);
    await client.close();
  });

  it('gives up after maxRetries', async () => {
    const client = clientFor(service, { maxRetries: 2 });
    failTimes(10, 502);
    expect((await caught(client.listChatbots())).kind).toBe('unavailable');
    expect(service.requests).toHaveLength(3);
    await client.close();
  });

  it('500 is not retried', async () => {
    const client = clientFor(service);
    failTimes(1, 500);
    await caught(client.listChatbots());
    expect(service.requests).toHaveLength(1);
    await client.close();
  });

  it('a create retries 503 but not 504; an update retries 504', async () => {
    const client = clientFor(service);
    let answers = [503, 200];
    service.handle((_req, res) => sendJson(res, answers.shift() ?? 200, { uuid: 't', name: 'n' }));
    await client.createSourceTag('cb1', { name: 'n', color: '#000000' });
    expect(service.requests).toHaveLength(2);
    service.requests.length = 0;
    answers = [504, 200];
    await caught(client.createSourceTag('cb1', { name: 'n', color: '#000000' }));
    expect(service.requests).toHaveLength(1);
    service.requests.length = 0;
    answers = [504, 200];
    await client.updateSourceTag('t', { name: 'm' });
    expect(service.requests).toHaveLength(2);
    await client.close();
  });

  it('a stream answered 503 is NOT retried', async () => {
    const client = clientFor(service);
    failTimes(5, 503);
    expect((await caught(client.streamMessage('s1', { query: 'q' }))).kind).toBe('unavailable');
    expect(service.requests).toHaveLength(1);
    await client.close();
  });

  /** An undici Agent whose first `refusals` connects fail with ECONNREFUSED. */
  function refusingAgent(refusals: number) {
    const counts = { attempts: 0 };
    const agent = new Agent({
      connect: (_options, callback) => {
        counts.attempts++;
        if (counts.attempts <= refusals) {
          const error = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
          callback(error, null);
          return;
        }
        const socket = connect({ host: '127.0.0.1', port: service.port });
        socket.once('connect', () => callback(null, socket));
        socket.once('error', (e) => callback(e, null));
      },
    });
    return { agent, counts };
  }

  it('a refused connection is retried for every call, the stream included', async () => {
    const { agent, counts } = refusingAgent(Infinity);
    const client = clientFor(service, { maxRetries: 2, dispatcher: agent });
    const listing = await caught(client.listChatbots());
    expect(listing.kind).toBe('unavailable');
    expect(listing.message).toMatch(/ECONNREFUSED/);
    expect(counts.attempts).toBe(3);
    const streaming = await caught(client.streamMessage('s1', { query: 'q' }));
    expect(streaming.kind).toBe('unavailable');
    expect(counts.attempts).toBe(6);
    const creating = await caught(client.createChatbot({ name: 'x' }));
    expect(creating.kind).toBe('unavailable');
    expect(counts.attempts).toBe(9);
    expect(service.requests).toHaveLength(0);
    await agent.close();
  });

  it('a real refused port maps to unavailable without the key in the message', async () => {
    const port = await closedPort();
    const client = createServiceClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: API_KEY,
      maxRetries: 1,
      retryBaseMs: 1,
    });
    const error = await caught(client.listChatbots());
    expect(error.kind).toBe('unavailable');
    expect(error.message).toBe(
      'GET /api/v1/chatbots: cannot connect to the service (ECONNREFUSED)',
    );
    await client.close();
  });

  it('a stream whose connects were refused is sent once the service is up', async () => {
    const { agent, counts } = refusingAgent(2);
    const client = clientFor(service, { dispatcher: agent });
    service.handle((_req, res) => {
      res.writeHead(200);
      res.end('answer');
    });
    const stream = await client.streamMessage('s1', { query: 'q' });
    let text = '';
    for await (const piece of stream) text += piece;
    expect(text).toBe('answer');
    expect(counts.attempts).toBe(3);
    expect(service.requests).toHaveLength(1);
    await agent.close();
  });

  it('honours Retry-After on a retried 503', async () => {
    const client = clientFor(service);
    let first = true;
    service.handle((_req, res) => {
      if (first) sendJson(res, 503, 'busy', { 'retry-after': '0' });
      else sendJson(res, 200, []);
      first = false;
    });
    await expect(client.listSourceTags('cb1')).resolves.toEqual([]);
    expect(service.requests).toHaveLength(2);
    await client.close();
  });
});

describe('timeouts and aborts of ordinary calls', () => {
  it('a GET with no answer times out once, and is not retried', async () => {
    const client = clientFor(service, { timeouts: { firstByteMs: 40 } });
    service.handle(() => {
      // never answers
    });
    // On fake time, moved on only while loopback I/O is at rest: the request reaches the
    // server before the timeout can fire, however loaded the machine.
    await onFakeTime(10, { ioTurns: true }, async (time) => {
      const error = await time.settle(caught(client.listChatbots()));
      expect(error.kind).toBe('timeout');
      expect(error.path).toBe('/api/v1/chatbots');
      expect(service.requests).toHaveLength(1);
      // Its own 40 ms, not the 5 min total.
      expect(time.elapsed()).toBeLessThan(1000);
    });
    await client.close();
  });

  it('the per-call timeoutMs bounds the retries and their backoff', async () => {
    const client = clientFor(service, { maxRetries: 100, retryBaseMs: 5 });
    service.handle((_req, res) => sendJson(res, 503, 'down'));
    // On fake time (see above): the backoff waits are virtual.
    await onFakeTime(10, { ioTurns: true }, async (time) => {
      const error = await time.settle(caught(client.listChatbots({ timeoutMs: 400 })));
      expect(error.kind).toBe('timeout');
      expect(error.message).toMatch(/total/);
      expect(service.requests.length).toBeGreaterThan(1);
      // The call's 400 ms, not the client's 5 min total.
      expect(time.elapsed()).toBeGreaterThanOrEqual(400);
      expect(time.elapsed()).toBeLessThan(1000);
    });
    await client.close();
  });

  it("a caller abort rejects with the signal's reason, even between retries", async () => {
    const client = clientFor(service, { retryBaseMs: 60_000 });
    const controller = new AbortController();
    const reason = new Error('user left');
    service.handle((_req, res) => {
      sendJson(res, 503, 'down');
      // Abort while the client waits to retry.
      res.on('finish', () => setImmediate(() => controller.abort(reason)));
    });
    await expect(client.listChatbots({ signal: controller.signal })).rejects.toBe(reason);
    expect(service.requests).toHaveLength(1);
    await client.close();
  });
});
