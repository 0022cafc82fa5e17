// ChunkedDecoder on its own: framed bodies built from seeded random pieces, cut into network
// reads every way we can afford, must give back the exact payload bytes, end exactly after the
// final CRLF, and refuse malformed framing with a named rule however the reads fall.
import { describe, expect, it } from 'vitest';
import { ChunkedDecoder, ChunkedError } from '../../src/service/h1/chunked.js';
import { seededRandom } from '../seeded-random.js';

const ascii = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

const intBelow = (random: () => number, bound: number) => Math.floor(random() * bound);

// Multi-byte UTF-8, bytes that look like framing, and plain text: data must never be parsed.
const ALPHABET = ['a', 'Z', ' ', '\r', '\n', '\r\n', '0', 'f', ';', 'é', '€', '😀', '中', '\u0000'];

function randomPayload(random: () => number, length: number): Uint8Array {
  const parts: string[] = [];
  let bytes = 0;
  while (bytes < length) {
    const part = ALPHABET[intBelow(random, ALPHABET.length)]!;
    parts.push(part);
    bytes += Buffer.byteLength(part);
  }
  return utf8(parts.join('')).subarray(0, length); // may cut a character: bytes, not text
}

interface Framed {
  payload: Uint8Array;
  wire: Uint8Array;
}

/**
 * A chunked body of random pieces (0..300 bytes; an empty piece cannot be a frame, so it is
 * skipped), sizes in upper or lower case hex with leading zeros, sometimes an extension,
 * sometimes trailer fields.
 */
function randomFramed(random: () => number, pieceCount: number, maxPiece = 300): Framed {
  const payloads: Uint8Array[] = [];
  const wire: Uint8Array[] = [];
  for (let index = 0; index < pieceCount; index++) {
    const piece = randomPayload(random, intBelow(random, maxPiece + 1));
    if (piece.length === 0) continue;
    payloads.push(piece);
    let size = piece.length.toString(16);
    if (random() < 0.5) size = size.toUpperCase();
    size = '0'.repeat(intBelow(random, 4)) + size;
    const extension = random() < 0.2 ? (random() < 0.5 ? ';name=value' : ' ;x') : '';
    wire.push(ascii(`${size}${extension}\r\n`), piece, ascii('\r\n'));
  }
  const lastSize = '0'.repeat(1 + intBelow(random, 3));
  const trailers = random() < 0.3 ? 'X-A: 1\r\nX-B: 2\r\n' : '';
  wire.push(ascii(`${lastSize}\r\n${trailers}\r\n`));
  return { payload: Buffer.concat(payloads), wire: new Uint8Array(Buffer.concat(wire)) };
}

interface Outcome {
  payload: Uint8Array;
  /** `done` after each read, in order. */
  doneAfter: boolean[];
  /** `consumed` of each read, in order. */
  consumed: number[];
}

/** Feeds `wire` cut at `cuts` (sorted offsets), each read in a fresh buffer as a socket gives. */
function decodeReads(wire: Uint8Array, cuts: number[]): Outcome {
  const decoder = new ChunkedDecoder();
  const payload: Uint8Array[] = [];
  const doneAfter: boolean[] = [];
  const consumed: number[] = [];
  const bounds = [0, ...cuts, wire.length];
  for (let index = 1; index < bounds.length; index++) {
    // A copy: decode rewrites its read in place (and Buffer#slice would be a view).
    const read = new Uint8Array(wire.subarray(bounds[index - 1], bounds[index]));
    const result = decoder.decode(read);
    payload.push(read.slice(0, result.payload));
    doneAfter.push(decoder.done);
    consumed.push(result.consumed);
  }
  return { payload: Buffer.concat(payload), doneAfter, consumed };
}

/** The body decodes whole, `done` turns true only with the read holding the final LF. */
function expectDecodes(framed: Framed, cuts: number[]): void {
  const outcome = decodeReads(framed.wire, cuts);
  expect(Buffer.from(outcome.payload).equals(Buffer.from(framed.payload))).toBe(true);
  const reads = cuts.length + 1;
  expect(outcome.doneAfter).toEqual(Array.from({ length: reads }, (_, i) => i === reads - 1));
  const lengths = [0, ...cuts, framed.wire.length].slice(1).map((end, i) => end - [0, ...cuts][i]!);
  expect(outcome.consumed).toEqual(lengths);
}

function randomCuts(random: () => number, length: number, count: number): number[] {
  const cuts = new Set<number>();
  for (let index = 0; index < count; index++) cuts.add(1 + intBelow(random, length - 1));
  return [...cuts].sort((a, b) => a - b);
}

const everyByte = (length: number) => Array.from({ length: length - 1 }, (_, i) => i + 1);

describe('ChunkedDecoder on well-formed bodies', () => {
  it('moves the payload to the front of the read and reports what it consumed', () => {
    const read = ascii('5\r\nhello\r\n3\r\n, w\r\n0\r\n\r\n');
    const decoder = new ChunkedDecoder();
    expect(decoder.decode(read)).toEqual({ payload: 8, consumed: read.length });
    expect(Buffer.from(read.subarray(0, 8)).toString()).toBe('hello, w');
    expect(decoder.done).toBe(true);
  });

  it('is not done before the final CRLF and returns nothing for an empty read', () => {
    const decoder = new ChunkedDecoder();
    expect(decoder.decode(new Uint8Array(0))).toEqual({ payload: 0, consumed: 0 });
    expect(decoder.decode(ascii('2\r\nok\r\n0\r\n\r'))).toEqual({ payload: 2, consumed: 11 });
    expect(decoder.done).toBe(false);
    expect(decoder.decode(ascii('\n'))).toEqual({ payload: 0, consumed: 1 });
    expect(decoder.done).toBe(true);
  });

  it('reads upper and lower case hex sizes and leading zeros', () => {
    const body = 'A\r\n0123456789\r\n0000b\r\nabcdefghijk\r\n00\r\n\r\n';
    const outcome = decodeReads(ascii(body), []);
    expect(Buffer.from(outcome.payload).toString()).toBe('0123456789abcdefghijk');
    expect(outcome.doneAfter).toEqual([true]);
  });

  it('keeps multi-byte UTF-8 split across frames as the same bytes', () => {
    const text = utf8('€😀é');
    const wire = Buffer.concat([
      ascii('2\r\n'),
      text.subarray(0, 2),
      ascii('\r\n5\r\n'),
      text.subarray(2, 7),
      ascii('\r\n2\r\n'),
      text.subarray(7),
      ascii('\r\n0\r\n\r\n'),
    ]);
    const framed = { payload: text, wire: new Uint8Array(wire) };
    for (const cut of everyByte(wire.length)) expectDecodes(framed, [cut]);
  });

  it('skips chunk extensions, with or without whitespace before them', () => {
    for (const extension of [';name=value', ' ;x', '\t;x', ';a="b c";d', ';', ' ']) {
      const wire = ascii(`5${extension}\r\nhello\r\n1${extension}\r\n!\r\n0${extension}\r\n\r\n`);
      const framed = { payload: ascii('hello!'), wire };
      expectDecodes(framed, []);
      for (const cut of everyByte(wire.length)) expectDecodes(framed, [cut]);
    }
  });

  it('skips trailer fields after the last frame and ends at the blank line', () => {
    const wire = ascii('4\r\nbody\r\n0\r\nX-A: 1\r\nX-B: 2\r\n\r\n');
    const framed = { payload: ascii('body'), wire };
    for (const cut of everyByte(wire.length)) expectDecodes(framed, [cut]);
    expectDecodes(framed, everyByte(wire.length));
  });

  it('stops at the end of the body and leaves what follows unconsumed', () => {
    const body = '3\r\nabc\r\n0\r\n\r\n';
    const read = ascii(`${body}HTTP/1.1 200 OK\r\n`);
    const decoder = new ChunkedDecoder();
    expect(decoder.decode(read)).toEqual({ payload: 3, consumed: body.length });
    expect(decoder.done).toBe(true);
    expect(Buffer.from(read.subarray(0, 3)).toString()).toBe('abc');
    expect(decoder.decode(ascii('more'))).toEqual({ payload: 0, consumed: 0 });

    const trailed = ascii('0\r\nX: y\r\n\r\nrest');
    expect(new ChunkedDecoder().decode(trailed)).toEqual({ payload: 0, consumed: 11 });
  });

  it('accepts a size of exactly 2^40 bytes and waits for its data', () => {
    const decoder = new ChunkedDecoder();
    expect(decoder.decode(ascii('10000000000\r\nab'))).toEqual({ payload: 2, consumed: 15 });
    expect(decoder.done).toBe(false);
  });
});

describe('ChunkedDecoder across every way of cutting the reads', () => {
  it('decodes a small body the same for every single and every pair of cut points', () => {
    const framed = randomFramed(seededRandom(7), 6, 12);
    const length = framed.wire.length;
    expect(length).toBeGreaterThan(40);
    expectDecodes(framed, []);
    for (let first = 1; first < length; first++) {
      expectDecodes(framed, [first]);
      for (let second = first + 1; second < length; second++)
        expectDecodes(framed, [first, second]);
    }
  });

  it('decodes random bodies for every single cut point and in 1-byte reads', () => {
    const random = seededRandom(2024);
    for (let round = 0; round < 20; round++) {
      const framed = randomFramed(random, 1 + intBelow(random, 4), 40);
      for (const cut of everyByte(framed.wire.length)) expectDecodes(framed, [cut]);
      expectDecodes(framed, everyByte(framed.wire.length));
    }
  });

  it('decodes large random bodies cut into random reads (property, seeded)', () => {
    const random = seededRandom(0xc0ffee);
    for (let round = 0; round < 300; round++) {
      const framed = randomFramed(random, 1 + intBelow(random, 30));
      const count = intBelow(random, 60);
      expectDecodes(framed, randomCuts(random, framed.wire.length, count));
    }
  });

  it('decodes large random bodies in 1-byte reads', () => {
    const random = seededRandom(99);
    for (let round = 0; round < 5; round++) {
      const framed = randomFramed(random, 20);
      expectDecodes(framed, everyByte(framed.wire.length));
    }
  });
});

/** Every single cut of `wire` (and the whole read) throws ChunkedError with `rule`. */
function expectRule(wire: string, rule: string): void {
  const bytes = ascii(wire);
  for (const cuts of [[], everyByte(bytes.length), ...everyByte(bytes.length).map((c) => [c])]) {
    let caught: unknown;
    try {
      decodeReads(bytes, cuts);
    } catch (error) {
      caught = error;
    }
    expect(caught, `cuts ${JSON.stringify(cuts)}`).toBeInstanceOf(ChunkedError);
    expect((caught as ChunkedError).rule).toBe(rule);
    expect((caught as ChunkedError).message).toBe(`chunked body: ${rule}`);
  }
}

describe('ChunkedDecoder on malformed bodies', () => {
  it('refuses frame data not followed by CRLF', () => {
    expectRule('5\r\nhelloX', 'frame data must end with CRLF');
    expectRule('5\r\nhello\rX', 'frame data must end with CRLF');
    expectRule('5\r\nhelloXY3\r\nabc\r\n', 'frame data must end with CRLF');
    expectRule('2\r\nab\r\n3\r\nabcd\r\n', 'frame data must end with CRLF');
  });

  it('refuses a size that is not hex', () => {
    expectRule('g\r\n', 'frame size must start with a hex digit');
    expectRule('-5\r\n', 'frame size must start with a hex digit');
    expectRule('5g\r\nhello\r\n', 'frame size must be hex digits');
    expectRule('0x5\r\nhello\r\n', 'frame size must be hex digits');
    expectRule('2\r\nab\r\nz\r\n', 'frame size must start with a hex digit');
  });

  it('refuses an empty size line', () => {
    expectRule('\r\n', 'frame size must start with a hex digit');
    expectRule('2\r\nab\r\n\r\n', 'frame size must start with a hex digit');
    expectRule(';ext\r\n', 'frame size must start with a hex digit');
  });

  it('refuses LF-only line endings', () => {
    expectRule('5\nhello\n0\n\n', 'frame size line must end with CRLF');
    expectRule('5;x\nhello\r\n', 'frame size line must end with CRLF');
    expectRule('5\rhello', 'frame size line must end with CRLF');
    expectRule('5\r\nhello\n0\r\n\r\n', 'frame data must end with CRLF');
    expectRule('0\r\n\n', 'body must end with CRLF');
    expectRule('0\r\nX-A: 1\n\r\n', 'trailer line must end with CRLF');
    expectRule('0\r\nX-A: 1\rX', 'trailer line must end with CRLF');
    expectRule('0\r\n\rX', 'body must end with CRLF');
  });

  it('refuses sizes over 16 hex digits or over 2^40 bytes', () => {
    expectRule('00000000000000001\r\nx\r\n', 'frame size too large');
    expectRule('10000000001\r\n', 'frame size too large');
    expectRule('ffffffffffffffffffff\r\n', 'frame size too large');
    expectRule('1\r\nx\r\n10000000001\r\n', 'frame size too large');
    expectRule('1\r\nx\r\n0000000000000000a\r\n', 'frame size too large');
  });
});
