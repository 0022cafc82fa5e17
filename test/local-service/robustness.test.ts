// Review fixes: a client leaving early, backpressure listeners, the rate limit's slot and its
// persistence, storing a source before indexing it, and schema errors in the service's shape.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { Ingestor } from '../../src/local-service/ingest.js';
import type { KnowledgePort } from '../../src/local-service/knowledge-port.js';
import { createDefaultKnowledge } from '../../src/local-service/knowledge-default.js';
import { SlidingWindowLimiter } from '../../src/local-service/rate-limit.js';
import type { Repository } from '../../src/local-service/repository.js';
import { ResponseSink } from '../../src/local-service/response-sink.js';
import { silentLogger } from '../../src/log.js';
import { openKeyvStore } from '../../src/state/keyv.js';
import { type Harness, KEY_A, startHarness } from './helpers.js';

/** A logger whose lines can be awaited by message. */
function watchedLogger() {
  const lines: { msg: string }[] = [];
  const waiters: { msg: string; resolve: () => void }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as { msg: string };
      lines.push(line);
      for (const w of waiters.filter((x) => x.msg === line.msg)) w.resolve();
      done();
    },
  });
  return {
    logger: pino({ level: 'debug' }, sink),
    seen: (msg: string) =>
      lines.some((l) => l.msg === msg)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ msg, resolve })),
  };
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function qaBot(h: Harness, rateLimit?: [number, number]) {
  const bot = await h.client.createChatbot({ name: 'Sky', rate_limit: rateLimit });
  await h.client.addQaSource(bot.uuid, {
    question: 'What colour is the sky?',
    answer: 'The sky is blue on a clear day because air scatters blue light the most.',
  });
  return { bot, session: await h.client.createSession(bot.uuid) };
}

describe('a client that leaves before the first byte', () => {
  it('does not hang the handler: the answer is stored in full and the slot stays counted', async () => {
    const watch = watchedLogger();
    const h = (harness = await startHarness({ logger: watch.logger }));
    const { session } = await qaBot(h, [2, 60]);
    h.service.setFaults({ firstByteDelayMs: 300 });
    const controller = new AbortController();
    const pending = request(`${h.service.url}/api/v1/session/${session.uuid}/message/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'What colour is the sky?' }),
      signal: controller.signal,
    });
    await watch.seen('injected first-byte delay');
    controller.abort();
    await expect(pending).rejects.toThrow();
    await watch.seen('answer stored'); // before the fix the handler waited forever
    h.service.setFaults({});
    const [message] = await h.client.listMessages(session.uuid);
    expect(message).toMatchObject({ query: 'What colour is the sky?', finish_reason: 'stop' });
    expect(message!.response).toContain('The sky is blue');
    // The answer was produced, so it counts: one slot of two is left.
    expect(
      (await h.raw('POST', `/api/v1/session/${session.uuid}/message/stream`, { query: 'q' }))
        .status,
    ).toBe(200);
    expect(
      (await h.raw('POST', `/api/v1/session/${session.uuid}/message/stream`, { query: 'q' }))
        .status,
    ).toBe(429);
  });
});

describe('ResponseSink', () => {
  /** A response whose buffer is always full, draining when told. */
  function fakeResponse() {
    const res = new EventEmitter() as EventEmitter & Record<string, unknown>;
    Object.assign(res, {
      destroyed: false,
      writableEnded: false,
      socket: { destroyed: false },
      write: () => false,
    });
    return res;
  }

  it('leaves no drain or close listener behind after many backpressure waits', async () => {
    const res = fakeResponse();
    const sink = new ResponseSink(res as unknown as ServerResponse);
    for (let i = 0; i < 20; i++) {
      const written = sink.write(`piece ${i}`);
      res.emit('drain');
      await written;
    }
    expect(res.listenerCount('drain')).toBe(0);
    expect(res.listenerCount('close')).toBe(1); // the one watcher, removed by dispose()
    sink.dispose();
    expect(res.listenerCount('close')).toBe(0);
  });

  it('stops waiting when the client leaves mid-wait, and never writes afterwards', async () => {
    const res = fakeResponse();
    let writes = 0;
    res.write = () => (writes++, false);
    const sink = new ResponseSink(res as unknown as ServerResponse);
    const waiting = sink.write('a');
    res.destroyed = true;
    res.emit('close');
    await waiting;
    await sink.write('b');
    expect(writes).toBe(1);
    expect(res.listenerCount('drain')).toBe(0);
    sink.dispose();
  });

  it('counts a response whose socket is already gone as closed', () => {
    const res = fakeResponse();
    res.socket = { destroyed: true };
    expect(new ResponseSink(res as unknown as ServerResponse).open).toBe(false);
  });
});

describe('rate limit', () => {
  it('gives the slot back when the message produced no answer (502)', async () => {
    const store = await openKeyvStore('memory://');
    const base = await createDefaultKnowledge(store, {
      refusePrivateUrls: false,
      maxFetchBytes: 1_000_000,
      fetchTimeoutMs: 5_000,
    });
    let fail = true;
    const knowledge: KnowledgePort = {
      ...base,
      answer(req, signal) {
        if (!fail) return base.answer(req, signal);
        fail = false;
        return {
          pieces: (async function* () {
            yield* [];
            throw new Error('model down');
          })(),
          citations: () => ({}),
        };
      },
      close: async () => {
        await base.close();
        await store.close();
      },
    };
    const h = (harness = await startHarness({ knowledge }));
    const { session } = await qaBot(h, [1, 60]);
    const send = () =>
      h.raw('POST', `/api/v1/session/${session.uuid}/message/stream`, {
        query: 'What colour is the sky?',
      });
    expect((await send()).status).toBe(502);
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(429);
  });

  it('keeps the window in the store across a restart (a new limiter on the same store)', async () => {
    const store = await openKeyvStore('memory://');
    const clock = { now: 1_000_000 };
    const first = new SlidingWindowLimiter(() => clock.now, store.namespace('ls-rate-windows'));
    expect((await first.take('bot', [2, 60])).allowed).toBe(true);
    clock.now += 1000;
    expect((await first.take('bot', [2, 60])).allowed).toBe(true);
    await first.flush();
    const second = new SlidingWindowLimiter(() => clock.now, store.namespace('ls-rate-windows'));
    const refused = await second.take('bot', [2, 60]);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 59_000 });
    const slot = (await second.take('other', [1, 60])).slot;
    second.release('other', slot, [1, 60]);
    expect((await second.take('other', [1, 60])).allowed).toBe(true);
    await store.close();
  });
});

describe('adding a Q&A source', () => {
  function stubs(failing: 'store' | 'index') {
    const calls: string[] = [];
    const records = new Map<string, Record<string, unknown>>();
    const repo = {
      async createSource(record: { uuid: string }) {
        calls.push('store');
        if (failing === 'store') throw new Error('disk full');
        records.set(record.uuid, { ...record });
      },
      async updateSource(uuid: string, change: (r: never) => unknown) {
        const next = (await change(records.get(uuid) as never)) as Record<string, unknown>;
        records.set(uuid, next);
        return next;
      },
    } as unknown as Repository;
    const knowledge = {
      index: {
        async add() {
          calls.push('index');
          if (failing === 'index') throw new Error('index broke');
          return { tokens: 7, chunks: 1 };
        },
      },
    } as unknown as KnowledgePort;
    const ingestor = new Ingestor(repo, knowledge, () => 0, silentLogger);
    return { ingestor, calls, records };
  }

  it('stores the record before indexing: a failed store leaves nothing searchable', async () => {
    const { ingestor, calls } = stubs('store');
    await expect(ingestor.addQa('me', 'bot', 'Q?', 'A.')).rejects.toThrow('disk full');
    expect(calls).toEqual(['store']);
  });

  it('marks the record error when indexing fails, success otherwise', async () => {
    const broken = stubs('index');
    await expect(broken.ingestor.addQa('me', 'bot', 'Q?', 'A.')).rejects.toMatchObject({
      status: 500,
    });
    expect(broken.calls).toEqual(['store', 'index']);
    expect([...broken.records.values()][0]).toMatchObject({
      status: 'error',
      error_message: 'indexing failed: index broke',
    });
  });
});

describe('schema validation', () => {
  it('answers a bad path id with 400 naming uuid, in the service error shape', async () => {
    const h = (harness = await startHarness());
    const res = await h.raw('GET', '/api/v1/chatbot/a%20b/agents');
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual({
      code: 'validation',
      message: 'uuid: must not contain "/", "?", "#" or spaces',
      field: 'uuid',
    });
  });

  it('words a schema failure as the client does (validate.ts), naming field and rule', async () => {
    const h = (harness = await startHarness());
    const missing = await h.raw('POST', '/api/v1/chatbot/create', { visibility: 'public' });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ field: 'name' });
    expect(missing.json.error.message).toMatch(/^name: is required/);
    const wrongType = await h.raw('POST', '/api/v1/chatbot/create', { name: 'x', rate_limit: 5 });
    expect(wrongType.json.error).toEqual({
      code: 'validation',
      message: 'rate_limit: must be [count, seconds]',
      field: 'rate_limit',
    });
    const notObject = await h.raw('POST', '/api/v1/chatbot/create', [1, 2]);
    expect(notObject.json.error).toMatchObject({
      field: 'body',
      message: 'body: must be an object',
    });
    // Nothing was coerced: a number is not a name.
    const numberName = await h.raw('POST', '/api/v1/chatbot/create', { name: 5 });
    expect(numberName.status).toBe(400);
    expect(numberName.json.error.field).toBe('name');
  });
});
