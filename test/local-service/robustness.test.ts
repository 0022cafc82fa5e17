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
import { openServiceDb } from '../../src/local-service/db/open.js';
import type { ChatbotRecord } from '../../src/local-service/records.js';
import { Repository } from '../../src/local-service/repository.js';
import { ResponseSink } from '../../src/local-service/response-sink.js';
import { silentLogger } from '../../src/log.js';
import { type Harness, KEY_A, startHarness } from './helpers.js';
import { sharedConverters } from '../converters.js';

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

/** A chatbot record for tests that use the repository directly. */
const chatbot = (uuid: string): ChatbotRecord => ({
  owner: 'me',
  uuid,
  name: uuid,
  created_at: '2026-01-01T00:00:00.000Z',
  modified_at: '2026-01-01T00:00:00.000Z',
  meta: {
    visibility: 'private',
    rate_limit: [5, 60],
    rate_limit_message: 'wait',
    show_citations: false,
  },
});

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
    const base = await createDefaultKnowledge({
      refusePrivateUrls: false,
      pool: sharedConverters,
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

  it('keeps the window in the store across a restart (a new limiter on the same file)', async () => {
    const db = openServiceDb('memory://');
    const repo = new Repository(db);
    const clock = { now: 1_000_000 };
    for (const uuid of ['bot', 'other']) await repo.createChatbot(chatbot(uuid));
    const first = new SlidingWindowLimiter(() => clock.now, db);
    expect((await first.take('bot', [2, 60])).allowed).toBe(true);
    clock.now += 1000;
    expect((await first.take('bot', [2, 60])).allowed).toBe(true);
    const second = new SlidingWindowLimiter(() => clock.now, db);
    const refused = await second.take('bot', [2, 60]);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 59_000 });
    const slot = (await second.take('other', [1, 60])).slot;
    expect((await second.take('other', [1, 60])).allowed).toBe(false);
    second.release('other', slot);
    expect((await second.take('other', [1, 60])).allowed).toBe(true);
    db.close();
  });
});

describe('adding a Q&A source', () => {
  it('stores the record and its chunks together: a failed chunk write leaves nothing', async () => {
    const db = openServiceDb('memory://');
    const repo = new Repository(db);
    await repo.createChatbot(chatbot('bot'));
    db.exec(`CREATE TEMP TRIGGER full_disk BEFORE INSERT ON chunks
             BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    const ingestor = new Ingestor(repo, {} as KnowledgePort, () => 0, silentLogger);
    await expect(ingestor.addQa('me', 'bot', 'Q?', 'A.')).rejects.toMatchObject({
      status: 500,
      wireCode: 'index_failed',
    });
    expect(await repo.listSources('bot')).toEqual([]);
    db.exec('DROP TRIGGER full_disk');
    const stored = await ingestor.addQa('me', 'bot', 'Q?', 'A.');
    expect(stored).toMatchObject({ status: 'success' });
    expect(await repo.listSources('bot')).toEqual([expect.objectContaining({ uuid: stored.uuid })]);
    db.close();
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
