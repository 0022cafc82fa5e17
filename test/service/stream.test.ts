import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { AnswerStream } from '../../src/service/api.js';
import { ServiceError } from '../../src/service/errors.js';
import { HIGH_WATER_CHARS } from '../../src/service/stream.js';
import { onFakeTime } from '../fake-time.js';
import { clientFor, deferred, sendJson, useFakeService } from './fake-service.js';

const service = useFakeService();

/** The server answers 200 with headers flushed and hands the response to the test. */
function openResponse(headers: Record<string, string> = {}) {
  const response = deferred<ServerResponse>();
  service.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.flushHeaders();
    response.resolve(res);
  });
  return response.promise;
}

const closed = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    if (res.destroyed || res.socket?.destroyed) resolve();
    else res.once('close', () => resolve());
  });

async function failureOf(stream: AnswerStream): Promise<ServiceError> {
  try {
    for await (const _piece of stream) {
      // drain
    }
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('the stream ended without an error');
}

describe('streamMessage', () => {
  it('hands on each piece as it arrives, exactly as sent, whitespace included', async () => {
    const client = clientFor(service);
    const resPromise = openResponse();
    const stream = await client.streamMessage('s1', { query: 'q' });
    const res = await resPromise;
    const it = stream[Symbol.asyncIterator]();
    // The server writes the next piece only after the client has handed on the previous one.
    const pieces = ['Hello', '\n\n', ' ', '42', '  \t', '{"a":1}', 'data: x\n'];
    for (const piece of pieces) {
      res.write(piece);
      expect(await it.next()).toEqual({ done: false, value: piece });
    }
    expect(stream.received).toBe(pieces.join(''));
    res.end();
    expect(await it.next()).toEqual({ done: true, value: undefined });
    await client.close();
  });

  it('keeps a UTF-8 character split across two writes whole', async () => {
    const client = clientFor(service);
    const resPromise = openResponse();
    const stream = await client.streamMessage('s1', { query: 'q' });
    const res = await resPromise;
    const it = stream[Symbol.asyncIterator]();
    const euro = Buffer.from('€', 'utf8'); // three bytes
    res.write(Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)]));
    expect(await it.next()).toEqual({ done: false, value: 'a' });
    res.write(euro.subarray(1, 2));
    res.write(Buffer.concat([euro.subarray(2), Buffer.from('b')]));
    const rest = await it.next();
    // The two writes may arrive in one read or two; either way no replacement character.
    let text = rest.value as string;
    if (text !== '€b') text += ((await it.next()).value as string) ?? '';
    expect(text).toBe('€b');
    res.end();
    expect((await it.next()).done).toBe(true);
    expect(stream.received).toBe('a€b');
    await client.close();
  });

  it('ends cleanly for a Content-Length body and for an empty body', async () => {
    const client = clientFor(service);
    service.handle((_req, res) => {
      res.writeHead(200, { 'content-length': '7' });
      res.end('one two');
    });
    let text = '';
    for await (const piece of await client.streamMessage('s1', { query: 'q' })) text += piece;
    expect(text).toBe('one two');
    service.handle((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const empty = await client.streamMessage('s1', { query: 'q' });
    expect((await empty[Symbol.asyncIterator]().next()).done).toBe(true);
    expect(empty.received).toBe('');
    await client.close();
  });

  it('a large answer read late arrives intact (the reader pauses, then resumes the socket)', async () => {
    const client = clientFor(service);
    const resPromise = openResponse();
    const stream = await client.streamMessage('s1', { query: 'q' });
    const res = await resPromise;
    const block = Buffer.from('0123456789abcdef\n€ '.repeat(3_000)); // ~66 KB, multi-byte
    const blocks = 128; // ~8 MB: far past the 1 M char mark and the socket buffers
    void (async () => {
      for (let i = 0; i < blocks; i++) {
        if (!res.write(block)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    })();
    // Read nothing until the client holds more than the mark: by then it has paused the socket.
    while (stream.received.length <= HIGH_WATER_CHARS) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    let text = '';
    for await (const piece of stream) text += piece;
    expect(text).toBe(block.toString().repeat(blocks));
    expect(service.requests).toHaveLength(1);
    await client.close();
  });

  it('a reset mid-stream throws unavailable with the partial text, and is not retried', async () => {
    const client = clientFor(service);
    const resPromise = openResponse();
    const stream = await client.streamMessage('s1', { query: 'q' });
    const res = await resPromise;
    const it = stream[Symbol.asyncIterator]();
    res.write('partial answer ');
    await it.next();
    res.write('more');
    await it.next();
    res.socket!.destroy();
    const error = await failureOf(stream);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.kind).toBe('unavailable');
    expect(error.partialText).toBe('partial answer more');
    expect(error.path).toBe('/api/v1/session/s1/message/stream');
    expect(service.requests).toHaveLength(1);
    await client.close();
  });

  it('a body cut short of its Content-Length is a failure, not a clean end', async () => {
    const client = clientFor(service);
    service.handle((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('short', () => res.socket!.destroy());
    });
    const error = await failureOf(await client.streamMessage('s1', { query: 'q' }));
    expect(error.kind).toBe('unavailable');
    expect(error.partialText).toBe('short');
    await client.close();
  });

  it('a slow first byte hits the first-byte timeout', async () => {
    const client = clientFor(service, { timeouts: { firstByteMs: 50 } });
    service.handle(() => {
      // Never answers.
    });
    // On fake time, moved on only while loopback I/O is at rest: the request reaches the
    // server before the timeout can fire, however loaded the machine.
    await onFakeTime(10, { ioTurns: true }, async (time) => {
      const error = await time.settle(
        client.streamMessage('s1', { query: 'q' }).catch((e: unknown) => e),
      );
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).kind).toBe('timeout');
      expect((error as ServiceError).message).toMatch(/first-byte/);
      expect(service.requests).toHaveLength(1);
      expect(time.elapsed()).toBeLessThan(1000);
    });
    await client.close();
  });

  it('headers without a first body byte also hit the first-byte timeout', async () => {
    const client = clientFor(service, { timeouts: { firstByteMs: 300, idleMs: 60_000 } });
    // On fake time, moved on only while loopback I/O is at rest: the headers are in before
    // the first-byte timeout can fire, however loaded the machine.
    await onFakeTime(50, { ioTurns: true }, async (time) => {
      void openResponse();
      const stream = await time.settle(client.streamMessage('s1', { query: 'q' }));
      const error = await time.settle(failureOf(stream));
      expect(error.kind).toBe('timeout');
      expect(error.message).toMatch(/first-byte/);
      expect(error.partialText).toBe('');
      expect(time.elapsed()).toBeGreaterThanOrEqual(300);
      expect(time.elapsed()).toBeLessThan(1000);
    });
    await client.close();
  });

  it('silence between chunks hits the idle timeout, keeps the partial text, closes the socket', async () => {
    const client = clientFor(service, { timeouts: { idleMs: 60 } });
    const resPromise = openResponse();
    const stream = await client.streamMessage('s1', { query: 'q' });
    const res = await resPromise;
    const it = stream[Symbol.asyncIterator]();
    res.write('So far');
    await it.next();
    const error = await failureOf(stream);
    expect(error.kind).toBe('timeout');
    expect(error.message).toMatch(/idle/);
    expect(error.partialText).toBe('So far');
    await closed(res);
    await client.close();
  });

  it('the total timeout covers the stream', async () => {
    const client = clientFor(service, { timeouts: { idleMs: 60_000 } });
    // On fake time, moved on only while loopback I/O is at rest (see above).
    await onFakeTime(50, { ioTurns: true }, async (time) => {
      const resPromise = openResponse();
      const stream = await time.settle(
        client.streamMessage('s1', { query: 'q' }, { timeoutMs: 300 }),
      );
      (await resPromise).write('abc');
      const error = await time.settle(failureOf(stream));
      expect(error.kind).toBe('timeout');
      expect(error.message).toMatch(/total/);
      expect(error.partialText).toBe('abc');
      expect(time.elapsed()).toBeGreaterThanOrEqual(300);
      expect(time.elapsed()).toBeLessThan(1000);
    });
    await client.close();
  });

  it('cancel() closes the connection and ends iteration', async () => {
    const client = clientFor(service);
    const resPromise = openResponse();
    const stream = await client.streamMessage('s1', { query: 'q' });
    const res = await resPromise;
    const it = stream[Symbol.asyncIterator]();
    res.write('x');
    await it.next();
    const pending = it.next();
    stream.cancel();
    expect(await pending).toEqual({ done: true, value: undefined });
    await closed(res);
    await client.close();
  });

  it('breaking out of for-await closes the connection', async () => {
    const client = clientFor(service);
    const resPromise = openResponse();
    const stream = await client.streamMessage('s1', { query: 'q' });
    const res = await resPromise;
    res.write('first');
    for await (const piece of stream) {
      expect(piece).toBe('first');
      break;
    }
    await closed(res);
    await client.close();
  });

  it("a caller abort rejects with the signal's reason, before and during the stream", async () => {
    const client = clientFor(service);
    const early = new AbortController();
    service.handle(() => early.abort(new Error('caller gave up')));
    await expect(
      client.streamMessage('s1', { query: 'q' }, { signal: early.signal }),
    ).rejects.toThrow('caller gave up');

    const late = new AbortController();
    const resPromise = openResponse();
    const stream = await client.streamMessage('s1', { query: 'q' }, { signal: late.signal });
    const res = await resPromise;
    const it = stream[Symbol.asyncIterator]();
    res.write('a');
    await it.next();
    const reason = new Error('stop now');
    late.abort(reason);
    await expect(it.next()).rejects.toBe(reason);
    await closed(res);
    await client.close();
  });

  it('an already aborted signal sends nothing', async () => {
    const client = clientFor(service);
    const reason = new Error('already');
    await expect(
      client.streamMessage('s1', { query: 'q' }, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(service.requests).toHaveLength(0);
    await client.close();
  });

  it('a non-2xx answer rejects with the mapped error', async () => {
    const client = clientFor(service);
    service.handle((_req, res) =>
      sendJson(
        res,
        429,
        { error: { message: 'Too many messages, wait a minute.' } },
        { 'retry-after': '30' },
      ),
    );
    const error = (await client
      .streamMessage('s1', { query: 'q' })
      .catch((e: unknown) => e)) as ServiceError;
    expect(error.kind).toBe('rate_limited');
    expect(error.message).toBe('Too many messages, wait a minute.');
    expect(error.retryAfterMs).toBe(30_000);
    await client.close();
  });
});
