// TextBody on its own, fed as undici's handler feeds it: the UTF-8 decode across reads (with
// its ASCII fast path) and the backpressure pause/resume at the high-water mark.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS } from '../../src/service/client.js';
import { CallScope } from '../../src/service/scope.js';
import { HIGH_WATER_CHARS, TextBody } from '../../src/service/stream.js';

const scopes: CallScope[] = [];
afterEach(() => {
  for (const scope of scopes.splice(0)) scope.end();
});

function bodyWithControl() {
  const calls: string[] = [];
  const scope = new CallScope({ method: 'POST', path: '/t' }, DEFAULT_TIMEOUTS);
  scopes.push(scope);
  const body = new TextBody(scope, {
    pause: () => calls.push('pause'),
    resume: () => calls.push('resume'),
    abort: () => calls.push('abort'),
  });
  return { body, calls };
}

/** Lets the read's microtask (the flush) run, as it does after undici parses a socket read. */
const afterRead = () => new Promise<void>((resolve) => setImmediate(resolve));

function seededRandom(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

describe('TextBody decoding', () => {
  it('joins the frames of one read into one piece and never joins across reads', async () => {
    const { body } = bodyWithControl();
    const it = body[Symbol.asyncIterator]();
    body.push(Buffer.from('Hel'));
    body.push(Buffer.from('lo'));
    expect(await it.next()).toEqual({ done: false, value: 'Hello' });
    body.push(Buffer.from(' world'));
    await afterRead();
    body.push(Buffer.from('!'));
    await afterRead();
    body.end();
    expect(await it.next()).toEqual({ done: false, value: ' world' });
    expect(await it.next()).toEqual({ done: false, value: '!' });
    expect(await it.next()).toEqual({ done: true, value: undefined });
  });

  it('an ASCII read after a split character still completes or replaces that character', async () => {
    const { body } = bodyWithControl();
    const euro = Buffer.from('€');
    body.push(euro.subarray(0, 2));
    await afterRead();
    body.push(euro.subarray(2));
    await afterRead();
    // A truncated character followed by plain ASCII: the decoder must report it, not drop it.
    body.push(Buffer.from([0xf0, 0x9f]));
    await afterRead();
    body.push(Buffer.from('ok'));
    await afterRead();
    body.end();
    expect(await body.readAll()).toBe('€\uFFFDok');
  });

  it('decodes any bytes cut at any place exactly as one whole decode would', async () => {
    const random = seededRandom(7);
    const alphabet = ['a', ' ', '\n', 'é', '€', '日', '👍'].map((c) => Buffer.from(c));
    const invalid = [0x80, 0xc0, 0xe2, 0xf0, 0xff].map((b) => Buffer.from([b]));
    for (let round = 0; round < 200; round++) {
      const parts: Buffer[] = [];
      for (let i = 0; i < 40; i++) {
        const from = random() < 0.1 ? invalid : alphabet;
        parts.push(from[Math.floor(random() * from.length)]!);
      }
      const all = Buffer.concat(parts);
      const { body } = bodyWithControl();
      for (let at = 0; at < all.length;) {
        const readEnd = Math.min(all.length, at + 1 + Math.floor(random() * 12));
        // Each read arrives as one or more frames.
        while (at < readEnd) {
          const frameEnd = Math.min(readEnd, at + 1 + Math.floor(random() * 4));
          body.push(all.subarray(at, frameEnd));
          at = frameEnd;
        }
        await afterRead();
      }
      body.end();
      expect(await body.readAll()).toBe(new TextDecoder().decode(all));
    }
  });
});

describe('TextBody backpressure', () => {
  it('pauses the connection at the high-water mark and resumes once half is read', async () => {
    const { body, calls } = bodyWithControl();
    const it = body[Symbol.asyncIterator]();
    const piece = 'x'.repeat(HIGH_WATER_CHARS / 8);
    for (let read = 0; read < 7; read++) {
      body.push(Buffer.from(piece));
      await afterRead();
    }
    expect(calls).toEqual([]);
    body.push(Buffer.from(piece));
    await afterRead();
    expect(calls).toEqual(['pause']);
    // More bytes parsed before the pause took effect are still queued, not lost.
    body.push(Buffer.from(piece));
    await afterRead();
    expect(calls).toEqual(['pause']);
    for (let read = 0; read < 5; read++) await it.next();
    expect(calls).toEqual(['pause']);
    await it.next(); // 3/8 of the mark left: below half
    expect(calls).toEqual(['pause', 'resume']);
    body.end();
    let rest = 0;
    for (let next = await it.next(); !next.done; next = await it.next()) rest++;
    expect(rest).toBe(3);
    expect(body.received).toBe(piece.repeat(9));
  });

  it('cancel() settles at once and closes the connection', async () => {
    const { body, calls } = bodyWithControl();
    const it = body[Symbol.asyncIterator]();
    const pending = it.next();
    body.cancel();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(calls).toEqual(['abort']);
    // Bytes that were already parsed after the cancel are dropped.
    body.push(Buffer.from('late'));
    await afterRead();
    expect(body.received).toBe('');
  });
});
