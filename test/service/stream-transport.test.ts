// The answer stream's transport (undici, through a dispatcher of its own with no cap on
// connections): reuse, framing, failures and TLS, against raw TCP servers that control every
// byte and Node's own HTTP servers.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerStream, ServiceClientConfig } from '../../src/service/api.js';
import { createServiceClient } from '../../src/service/client.js';
import { ServiceError } from '../../src/service/errors.js';
import { HIGH_WATER_CHARS } from '../../src/service/stream.js';
import { useFakeTime } from '../fake-time.js';
import { API_KEY, deferred } from './fake-service.js';

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  );
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(url: string, config: Partial<ServiceClientConfig> = {}) {
  const made = createServiceClient({ baseUrl: url, apiKey: API_KEY, retryBaseMs: 1, ...config });
  cleanups.push(() => made.close());
  return made;
}

/**
 * A TCP server that answers each request (once its head and body are in) with `respond`, which
 * writes raw bytes; it counts connections and hands each socket to the test.
 */
async function rawServer(respond: (socket: Socket, request: string) => void) {
  const sockets: Socket[] = [];
  const server = createTcpServer({ allowHalfOpen: true }, (socket) => {
    sockets.push(socket);
    let pending = '';
    socket.on('data', (data: Buffer) => {
      pending += data.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const request = pending.slice(0, end + 4 + length);
        pending = pending.slice(end + 4 + length);
        respond(socket, request);
      }
    });
    socket.on('error', () => {});
  });
  const host = await listen(server);
  // Half-open sockets stay open after the client's FIN: close them so the server can stop.
  cleanups.push(() => sockets.forEach((socket) => socket.destroy()));
  return { url: `http://${host}`, sockets };
}

async function readAll(stream: AnswerStream): Promise<string> {
  let text = '';
  for await (const piece of stream) text += piece;
  return text;
}

async function failureOf(stream: AnswerStream): Promise<ServiceError> {
  try {
    await readAll(stream);
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('the stream ended without an error');
}

const chunked = (...pieces: string[]) =>
  'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n' +
  pieces.map((piece) => `${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`).join('') +
  '0\r\n\r\n';

/** The error a call rejects with; fails the test when it resolves. */
async function rejection(pending: Promise<unknown>): Promise<ServiceError> {
  try {
    await pending;
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('the call did not fail');
}

const ask = (made: ReturnType<typeof client>) => made.streamMessage('s1', { query: 'q' });

/** Resolves once the client has closed its side of `socket` (the server sees its FIN). */
const closed = (socket: Socket) =>
  new Promise<void>((resolve) => {
    if (socket.readableEnded) resolve();
    else socket.once('end', () => resolve());
  });

/** undici hands a connection back to its pool on the turn of the event loop after a response. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the answer stream transport', () => {
  it('sends one well-formed request: method, path, host, key, JSON body with its length', async () => {
    const seen = deferred<string>();
    const server = await rawServer((socket, request) => {
      seen.resolve(request);
      socket.write(chunked('ok'));
    });
    const made = client(`${server.url}/base/`);
    expect(await readAll(await made.streamMessage('s:1', { query: 'héllo' }))).toBe('ok');
    const request = await seen.promise;
    const body = JSON.stringify({ query: 'héllo' });
    expect(request.startsWith('POST /base/api/v1/session/s%3A1/message/stream HTTP/1.1\r\n')).toBe(
      true,
    );
    expect(request).toContain(`\r\nhost: ${new URL(server.url).host}\r\n`);
    expect(request).toContain(`\r\nauthorization: Bearer ${API_KEY}\r\n`);
    expect(request).toContain('\r\ncontent-type: application/json\r\n');
    expect(request).toContain(`\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`);
    expect(Buffer.from(request, 'latin1').toString('utf8').endsWith(`\r\n\r\n${body}`)).toBe(true);
  });

  it('reuses a kept-alive connection for the next answer', async () => {
    let answers = 0;
    const server = await rawServer((socket) => socket.write(chunked(`answer ${++answers}`)));
    const made = client(server.url);
    expect(await readAll(await ask(made))).toBe('answer 1');
    await nextTurn();
    expect(await readAll(await ask(made))).toBe('answer 2');
    expect(server.sockets).toHaveLength(1);
  });

  it('opens a new connection after "connection: close", a close-delimited body or a short server keep-alive', async () => {
    const heads = [
      'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nab',
      'HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\ncd',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nef',
      'HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\nanswer 4',
    ];
    let next = 0;
    const server = await rawServer((socket) => socket.write(heads[next++]!));
    const made = client(server.url);
    expect(await readAll(await ask(made))).toBe('ab');
    await closed(server.sockets[0]!);
    expect(await readAll(await ask(made))).toBe('cd');
    await closed(server.sockets[1]!);
    expect(await readAll(await ask(made))).toBe('ef');
    await nextTurn();
    expect(await readAll(await ask(made))).toBe('answer 4');
    // The fourth reuses the third's connection: only the first two were closed.
    expect(server.sockets).toHaveLength(3);
  });

  it('does not reuse a connection the server closed while it was idle', async () => {
    let answers = 0;
    const clientEnded = deferred();
    const server = await rawServer((socket) => {
      socket.write(chunked(`answer ${++answers}`));
      if (answers === 1) {
        // FIN after the answer; the client's FIN back proves it noticed.
        socket.end();
        socket.once('end', () => clientEnded.resolve());
      }
    });
    const made = client(server.url);
    expect(await readAll(await ask(made))).toBe('answer 1');
    await clientEnded.promise;
    expect(await readAll(await ask(made))).toBe('answer 2');
    expect(server.sockets).toHaveLength(2);
  });

  it('never asks again when a reused connection closes before any byte: the server may have read it', async () => {
    let requests = 0;
    const server = await rawServer((socket) => {
      requests++;
      // The second question arrives whole, then the server goes away without answering.
      if (requests === 2) socket.end();
      else socket.write(chunked(`answer ${requests}`));
    });
    const made = client(server.url, { maxRetries: 3 });
    expect(await readAll(await ask(made))).toBe('answer 1');
    await nextTurn();
    const error = await rejection(ask(made));
    expect(error.kind).toBe('unavailable');
    expect(requests).toBe(2);
    expect(await readAll(await ask(made))).toBe('answer 3');
  });

  it('a body paused for a reader that is behind resumes, completes and leaves its connection reusable', async () => {
    const big = 'x'.repeat(HIGH_WATER_CHARS * 2);
    let requests = 0;
    const server = await rawServer((socket) => {
      requests++;
      if (requests === 1)
        socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${big.length}\r\n\r\n${big}`);
      else socket.write(chunked(`answer ${requests}`));
    });
    const made = client(server.url, { timeouts: { firstByteMs: 2_000 } });
    const first = await ask(made);
    // Nobody reads `first`: its queue passes the high-water mark, so the connection is paused
    // with the body unfinished, and the next answer needs a connection of its own.
    while (first.received.length < HIGH_WATER_CHARS) await nextTurn();
    expect(await readAll(await ask(made))).toBe('answer 2');
    expect(server.sockets).toHaveLength(2);
    expect(await readAll(first)).toBe(big);
    await nextTurn();
    // Both connections are back in the pool: two more answers open none.
    const [third, fourth] = await Promise.all([ask(made), ask(made)]);
    expect([await readAll(third!), await readAll(fourth!)].sort()).toEqual([
      'answer 3',
      'answer 4',
    ]);
    expect(server.sockets).toHaveLength(2);
  });

  it('does not reuse a connection that sent bytes after a bodiless response', async () => {
    const responses = [
      'HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nstray',
      chunked('fresh'),
    ];
    let next = 0;
    const server = await rawServer((socket) => socket.write(responses[next++]!));
    const made = client(server.url);
    expect(await readAll(await ask(made))).toBe('');
    await nextTurn();
    expect(await readAll(await ask(made))).toBe('fresh');
    expect(server.sockets).toHaveLength(2);
  });

  it('a 101 Switching Protocols nobody asked for fails the call, never taken as the answer', async () => {
    const server = await rawServer((socket) =>
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\n'),
    );
    const error = await rejection(ask(client(server.url, { maxRetries: 0 })));
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.kind).toBe('unavailable');
  });

  it('an abort while connecting (a TLS handshake that never ends) rejects at once; the connect timeout drops the socket', async () => {
    const gone = deferred();
    const accepted = deferred();
    // Accepts TCP, never speaks TLS.
    const silent = createTcpServer((socket) => {
      socket.on('error', () => {});
      socket.resume();
      socket.once('close', () => gone.resolve());
      accepted.resolve();
    });
    const host = await listen(silent);
    // On fake time: undici's connect timeout ticks in half seconds, here virtual ones.
    const time = useFakeTime();
    cleanups.push(() => time.restore());
    const controller = new AbortController();
    // undici finishes (or times out) a connect it started, even when its request is gone.
    const pending = client(`https://${host}`, { timeouts: { connectMs: 200 } }).streamMessage(
      's1',
      { query: 'q' },
      { signal: controller.signal },
    );
    await time.settle(accepted.promise);
    const reason = new Error('user left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await time.settle(gone.promise);
  });

  it('never asks again when a new connection closes without an answer', async () => {
    let requests = 0;
    const server = await rawServer((socket) => {
      requests++;
      socket.end();
    });
    const error = await rejection(ask(client(server.url, { maxRetries: 3 })));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/closed the connection before the response ended/);
    expect(requests).toBe(1);
  });

  it('gives every concurrent answer its own connection: none waits behind another', async () => {
    const count = 20;
    const waiting: Socket[] = [];
    const allIn = deferred();
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n');
      waiting.push(socket);
      if (waiting.length === count) allIn.resolve();
    });
    // Two pooled connections for ordinary calls; answers are not limited by that.
    const made = client(server.url, { connections: 2 });
    const streams = await Promise.all(Array.from({ length: count }, () => ask(made)));
    await allIn.promise;
    const firsts = await Promise.all(streams.map((s) => s[Symbol.asyncIterator]().next()));
    expect(firsts.map((r) => r.value)).toEqual(Array(count).fill('first'));
    for (const socket of waiting) socket.write('0\r\n\r\n');
    expect(await Promise.all(streams.map(readAll))).toEqual(Array(count).fill(''));
    expect(server.sockets).toHaveLength(count);
  });

  it('reads content-length, close-delimited and chunked bodies with extensions and trailers', async () => {
    const responses = [
      'HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\nlength!',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nx-trailer: t\r\n\r\n',
      'HTTP/1.0 200 OK\r\n\r\nuntil the end',
    ];
    let next = 0;
    const server = await rawServer((socket) => {
      socket.write(responses[next++]!);
      if (next === 3) socket.end();
    });
    const made = client(server.url);
    expect(await readAll(await ask(made))).toBe('length!');
    expect(await readAll(await ask(made))).toBe('abc');
    expect(await readAll(await ask(made))).toBe('until the end');
  });

  it('skips 1xx responses before the answer', async () => {
    const server = await rawServer((socket) => {
      // (undici refuses a 100 Continue that no "expect: 100-continue" asked for.)
      socket.write('HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n');
      setImmediate(() => socket.write(chunked('after hints')));
    });
    const made = client(server.url);
    expect(await readAll(await ask(made))).toBe('after hints');
  });

  it('a broken frame ends the stream with a protocol error that keeps the text so far', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n');
    });
    const error = await failureOf(await ask(client(server.url)));
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.kind).toBe('protocol');
    expect(error.message).toMatch(/chunk size/);
    expect(error.partialText).toBe('hello');
  });

  it('a connection closed inside a chunked body is an "unavailable" error with the text so far', async () => {
    const server = await rawServer((socket) => {
      socket.end('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nhalf\r\n');
    });
    const error = await failureOf(await ask(client(server.url)));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/closed the connection before the response ended/);
    expect(error.partialText).toBe('half');
  });

  it('refuses an oversized or malformed response head as a protocol error', async () => {
    const heads = [`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70_000)}\r\n\r\n`, 'HTTP/2 200\r\n\r\n'];
    let next = 0;
    const server = await rawServer((socket) => socket.write(heads[next++]!));
    const made = client(server.url, { maxRetries: 0 });
    const big = await rejection(ask(made));
    expect(big.kind).toBe('protocol');
    expect(big.message).toMatch(/response head is too large/);
    const bad = await rejection(ask(made));
    expect(bad.kind).toBe('protocol');
    expect(bad.message).toMatch(/broke HTTP\/1\.1/);
  });

  it('an error status reads its body from the stream connection and maps it', async () => {
    const server = await rawServer((socket) => {
      const body = '{"error":"rate limited"}';
      socket.write(
        `HTTP/1.1 429 Too Many Requests\r\nretry-after: 0\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
    });
    const made = client(server.url, { maxRetries: 0 });
    const error = await rejection(ask(made));
    expect(error.kind).toBe('rate_limited');
    expect(error.status).toBe(429);
    expect(error.body).toContain('rate limited');
  });

  it('an abort before the head closes the connection and rejects with the reason', async () => {
    const closed = deferred();
    const requested = deferred();
    const server = await rawServer((socket) => {
      socket.once('end', () => closed.resolve());
      requested.resolve();
    });
    const controller = new AbortController();
    const pending = client(server.url).streamMessage(
      's1',
      { query: 'q' },
      { signal: controller.signal },
    );
    await requested.promise;
    const reason = new Error('user left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closed.promise;
    expect(server.sockets).toHaveLength(1);
  });

  it('close() waits for an answer in flight, then refuses new ones', async () => {
    let socketOfAnswer: Socket | undefined;
    const server = await rawServer((socket) => {
      socketOfAnswer = socket;
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
    });
    const made = createServiceClient({ baseUrl: server.url, apiKey: API_KEY, maxRetries: 0 });
    const stream = await ask(made);
    let closed = false;
    const closing = made.close().then(() => (closed = true));
    const reading = readAll(stream);
    socketOfAnswer!.write('4\r\nlast\r\n0\r\n\r\n');
    expect(await reading).toBe('last');
    await closing;
    expect(closed).toBe(true);
    const refused = await rejection(ask(made));
    expect(refused.kind).toBe('unavailable');
    expect(refused.message).toMatch(/the client is closed/);
  });

  it('close() waits for an answer that was still connecting when it was called', async () => {
    const asked = deferred<Socket>();
    const server = await rawServer((socket) => asked.resolve(socket));
    const made = createServiceClient({ baseUrl: server.url, apiKey: API_KEY, maxRetries: 0 });
    const answering = ask(made);
    let closed = false;
    const closing = made.close().then(() => (closed = true));
    const socket = await asked.promise;
    expect(closed).toBe(false);
    socket.write(chunked('made it'));
    expect(await readAll(await answering)).toBe('made it');
    await closing;
    expect(closed).toBe(true);
  });

  it('with an injected dispatcher, the stream goes through it (proxies, test doubles)', async () => {
    const server = await rawServer((socket) => socket.write(chunked('via undici')));
    const agent = new Agent();
    cleanups.push(() => agent.close());
    const paths: string[] = [];
    const spy = Object.create(agent) as Dispatcher;
    spy.dispatch = (options, handler) => {
      paths.push(options.path);
      return agent.dispatch(options, handler);
    };
    const made = client(server.url, { dispatcher: spy });
    expect(await readAll(await ask(made))).toBe('via undici');
    expect(paths).toEqual(['/api/v1/session/s1/message/stream']);
  });

  it('refuses an API key that could forge a header', () => {
    expect(() =>
      createServiceClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'key\r\nx-evil: 1' }),
    ).toThrow(expect.objectContaining({ kind: 'validation', field: 'apiKey' }) as Error);
  });
});

describe('https', () => {
  async function tlsService() {
    const server = createHttpsServer(
      { key: fixture('localhost-key.pem'), cert: fixture('localhost-cert.pem') },
      (req, res: ServerResponse) => {
        req.resume();
        if (req.url?.endsWith('/stream')) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('secure ');
          res.end('answer');
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('[]');
        }
      },
    );
    return `https://${await listen(server)}`;
  }

  it('verifies the certificate: a self-signed service is refused', async () => {
    const url = await tlsService();
    const error = await rejection(ask(client(url, { maxRetries: 0 })));
    expect(error.kind).toBe('unavailable');
    expect(String((error.cause as { code?: string }).code)).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
  });

  it('streams and calls over TLS when the service certificate authority is trusted', async () => {
    const url = await tlsService();
    const made = client(url, { ca: fixture('localhost-cert.pem') });
    expect(await readAll(await ask(made))).toBe('secure answer');
    expect(await made.listChatbots()).toEqual([]);
  });
});

describe('plain HTTP servers', () => {
  it('reads a Node HTTP server answer and reuses its connection', async () => {
    const connections = new Set<unknown>();
    const server = createHttpServer((req, res) => {
      connections.add(req.socket);
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('node ');
      res.end('says hi');
    });
    const url = `http://${await listen(server)}`;
    const made = client(url);
    expect(await readAll(await ask(made))).toBe('node says hi');
    await nextTurn();
    expect(await readAll(await ask(made))).toBe('node says hi');
    expect(connections.size).toBe(1);
  });
});
