import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/service/index.js';
import { isServiceError } from '../../src/service/errors.js';
import { useFakeTime } from '../fake-time.js';
import { type Harness, KEY_A, readPieces, startHarness } from './helpers.js';

const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: () => clock.now });
});
afterAll(() => h.close());

async function botAndSession(rateLimit?: [number, number]) {
  const bot = await h.client.createChatbot({
    name: 'Limited',
    rate_limit: rateLimit,
    rate_limit_message: 'Easy there! Wait a little.',
  });
  await h.client.addQaSource(bot.uuid, {
    question: 'What colour is the sky?',
    answer: 'The sky is blue on a clear day because air scatters blue light the most.',
  });
  return { bot, session: await h.client.createSession(bot.uuid) };
}

const send = (sessionUuid: string, query = 'What colour is the sky?') =>
  h.raw('POST', `/api/v1/session/${sessionUuid}/message/stream`, { query });

describe('rate limit', () => {
  it('refuses the message over [count, seconds] with 429, the message and Retry-After, and stores nothing', async () => {
    const { bot, session } = await botAndSession([2, 10]);
    const start = clock.now;
    expect((await send(session.uuid)).status).toBe(200);
    clock.now += 1000;
    expect((await send(session.uuid)).status).toBe(200);
    clock.now += 3000;
    const refused = await send(session.uuid, 'third');
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({
      code: 'rate_limited',
      message: 'Easy there! Wait a little.',
    });
    expect(refused.headers['retry-after']).toBe('6'); // the first message leaves the window at +10 s
    // Counted per chatbot: a second session of the same chatbot is refused too.
    const second = await h.client.createSession(bot.uuid);
    expect((await send(second.uuid, 'fourth')).status).toBe(429);
    const messages = await h.client.listMessages(session.uuid);
    expect(messages.map((m) => m.query)).toEqual([
      'What colour is the sky?',
      'What colour is the sky?',
    ]);
    // The client reads it as rate_limited with the wait and the chatbot's message.
    await expect(h.client.streamMessage(session.uuid, { query: 'fifth' })).rejects.toSatisfy(
      (e) =>
        isServiceError(e, 'rate_limited') &&
        e.retryAfterMs === 6000 &&
        e.message.includes('Easy there!'),
    );
    clock.now = start + 10_000; // the first message has left the sliding window
    expect((await send(session.uuid, 'sixth')).status).toBe(200);
    expect((await send(session.uuid, 'seventh')).status).toBe(429);
  });

  it('uses the default [20, 240] and limits each chatbot on its own', async () => {
    const { session } = await botAndSession();
    for (let i = 0; i < 20; i++) expect((await send(session.uuid, `q${i}`)).status).toBe(200);
    const refused = await send(session.uuid, 'one too many');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBe(240);
    const other = await botAndSession([1, 1]);
    expect((await send(other.session.uuid)).status).toBe(200);
  });
});

describe('faults', () => {
  it('answers stream requests with the injected status, storing nothing', async () => {
    const { session } = await botAndSession();
    h.service.setFaults({ failStatus: 503 });
    try {
      const res = await send(session.uuid);
      expect(res.status).toBe(503);
      expect(res.json.error.code).toBe('injected_fault');
      await expect(h.client.streamMessage(session.uuid, { query: 'again' })).rejects.toSatisfy(
        (e) => isServiceError(e, 'unavailable'),
      );
      // Other endpoints are untouched.
      expect(await h.client.listMessages(session.uuid)).toEqual([]);
    } finally {
      h.service.setFaults({});
    }
  });

  it('waits before the first byte', async () => {
    const { session } = await botAndSession();
    h.service.setFaults({ firstByteDelayMs: 300 });
    // On fake time, moved on only while loopback I/O is at rest: the delay is virtual.
    const time = useFakeTime(50, { ioTurns: true });
    try {
      const res = await time.settle(send(session.uuid));
      expect(res.status).toBe(200);
      expect(time.elapsed()).toBeGreaterThanOrEqual(300);
      const impatient = createServiceClient({
        baseUrl: h.service.url,
        apiKey: KEY_A,
        maxRetries: 0,
        timeouts: { firstByteMs: 50 },
      });
      try {
        const error = await time.settle(
          impatient.streamMessage(session.uuid, { query: 'quick?' }).catch((e: unknown) => e),
        );
        expect(isServiceError(error, 'timeout')).toBe(true);
      } finally {
        await impatient.close();
      }
    } finally {
      time.restore();
      h.service.setFaults({});
    }
  });

  it('cuts the connection after N pieces; the full answer is still stored', async () => {
    const { session } = await botAndSession();
    h.service.setFaults({ cutAfterPieces: 2 });
    try {
      const res = await request(`${h.service.url}/api/v1/session/${session.uuid}/message/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'What colour is the sky?' }),
      });
      expect(res.statusCode).toBe(200);
      let received = '';
      await expect(
        (async () => {
          for await (const chunk of res.body) received += chunk.toString();
        })(),
      ).rejects.toThrow();
      const stream = await h.client.streamMessage(session.uuid, {
        query: 'What colour is the sky?',
      });
      let partial = '';
      await expect(readPieces(stream)).rejects.toSatisfy((e) => {
        partial = (e as { partialText?: string }).partialText ?? '';
        return isServiceError(e);
      });
      const messages = await h.client.listMessages(session.uuid);
      expect(messages).toHaveLength(2);
      const full = messages[0]!.response;
      expect(full.startsWith(received)).toBe(true);
      expect(received.length).toBeGreaterThan(0);
      expect(received.length).toBeLessThan(full.length);
      expect(full.startsWith(partial)).toBe(true);
      expect(messages[0]!.finish_reason).toBe('stop');
    } finally {
      h.service.setFaults({});
    }
  });

  it('cuts before the first piece with cutAfterPieces 0', async () => {
    const { session } = await botAndSession();
    h.service.setFaults({ cutAfterPieces: 0 });
    try {
      const stream = await h.client.streamMessage(session.uuid, {
        query: 'What colour is the sky?',
      });
      await expect(readPieces(stream)).rejects.toSatisfy(
        (e) => isServiceError(e) && stream.received === '',
      );
    } finally {
      h.service.setFaults({});
    }
  });
});
