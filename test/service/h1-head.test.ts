// parseHead and headEnd on their own: the status line, header fields, the body's framing and
// whether the connection may be reused, each with exact values and exact error rules.
import { describe, expect, it } from 'vitest';
import { HeadError, headEnd, parseHead, type ResponseHead } from '../../src/service/h1/head.js';

/** A head from its lines (latin1, as on the wire), ending in the blank line. */
const headOf = (...lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');

const parse = (lines: string[], method = 'POST'): ResponseHead =>
  parseHead(headOf(...lines), method);

function ruleOf(lines: string[], method = 'POST'): string {
  try {
    parse(lines, method);
  } catch (error) {
    expect(error).toBeInstanceOf(HeadError);
    const rule = (error as HeadError).rule;
    expect((error as HeadError).message).toBe(`response head: ${rule}`);
    return rule;
  }
  throw new Error(`no HeadError for ${JSON.stringify(lines)}`);
}

const STATUS_RULE = 'status line must be "HTTP/1.x NNN reason"';
const FIELD_RULE = 'header field must be "name: value"';

describe('headEnd', () => {
  it('returns the index just past the first CRLFCRLF', () => {
    expect(headEnd(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'))).toBe(19);
    expect(headEnd(Buffer.from('HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody\r\n\r\n'))).toBe(25);
    expect(headEnd(Buffer.from('\r\n\r\n'))).toBe(4);
  });

  it('returns -1 while the blank line is not in yet', () => {
    expect(headEnd(Buffer.alloc(0))).toBe(-1);
    expect(headEnd(Buffer.from('HTTP/1.1 200 OK\r\nA: b\r\n'))).toBe(-1);
    expect(headEnd(Buffer.from('HTTP/1.1 200 OK\r\nA: b\r\n\r'))).toBe(-1);
    expect(headEnd(Buffer.from('HTTP/1.1 200 OK\n\nA: b\r\n'))).toBe(-1);
    expect(headEnd(Buffer.from('HTTP/1.1 200 OK\r\n\n\r\n'))).toBe(-1);
  });
});

describe('parseHead: the status line', () => {
  it('reads HTTP/1.1 and HTTP/1.0 with or without a reason phrase', () => {
    expect(parse(['HTTP/1.1 200 OK', 'Content-Length: 0'])).toEqual({
      status: 200,
      headers: { 'content-length': '0' },
      framing: { kind: 'length', bytes: 0 },
      keepAlive: true,
    });
    expect(parse(['HTTP/1.0 200 OK']).status).toBe(200);
    expect(parse(['HTTP/1.1 404 Not Found Here']).status).toBe(404);
    expect(parse(['HTTP/1.1 503']).status).toBe(503);
    expect(parse(['HTTP/1.1 201 ']).status).toBe(201);
    expect(parse(['HTTP/1.1 502 Bad\tGateway é']).status).toBe(502);
  });

  it('refuses anything else', () => {
    for (const line of [
      '',
      'HTTP/2 200 OK',
      'HTTP/1.2 200 OK',
      'http/1.1 200 OK',
      'HTTP/1.1 20 OK',
      'HTTP/1.1 2000 OK',
      'HTTP/1.1  200 OK',
      'HTTP/1.1 2x0 OK',
      'HTTP/1.1 200OK',
      ' HTTP/1.1 200 OK',
      'ICY 200 OK',
      'HTTP/1.1 200 OK\nX: y',
      'HTTP/1.1 200 OK\rX: y',
    ]) {
      expect(ruleOf([line]), JSON.stringify(line)).toBe(STATUS_RULE);
    }
  });
});

describe('parseHead: header fields', () => {
  it('lower-cases names and trims only spaces and tabs around values', () => {
    const head = parse([
      'HTTP/1.1 200 OK',
      'Content-Type:  text/plain; charset=utf-8 ',
      'X-MiXeD:\tvalue\t',
      'x-empty:',
      "X-!#$%&'*+-.^_`|~09: tokens",
      'X-Latin: caf\u00e9 \u00a0',
    ]);
    expect(head.headers).toEqual({
      'content-type': 'text/plain; charset=utf-8',
      'x-mixed': 'value',
      'x-empty': '',
      "x-!#$%&'*+-.^_`|~09": 'tokens',
      'x-latin': 'caf\u00e9 \u00a0',
    });
  });

  it('gathers a repeated field into an array in arrival order, whatever its case', () => {
    const head = parse([
      'HTTP/1.1 200 OK',
      'Set-Cookie: a=1',
      'X-One: only',
      'set-cookie: b=2',
      'SET-COOKIE: ',
      'Vary: x',
      'vary: y',
    ]);
    expect(head.headers).toEqual({
      'set-cookie': ['a=1', 'b=2', ''],
      'x-one': 'only',
      vary: ['x', 'y'],
    });
  });

  it('keeps fields named like Object.prototype members as plain values', () => {
    const head = parse([
      'HTTP/1.1 200 OK',
      'Constructor: a',
      'toString: b',
      '__proto__: c',
      '__proto__: d',
      'hasOwnProperty: e',
    ]);
    expect(Object.keys(head.headers)).toEqual([
      'constructor',
      'tostring',
      '__proto__',
      'hasownproperty',
    ]);
    expect(head.headers['constructor']).toBe('a');
    expect(head.headers['tostring']).toBe('b');
    expect(head.headers['__proto__']).toEqual(['c', 'd']);
    expect(head.headers['hasownproperty']).toBe('e');
    expect(head.headers['valueof']).toBeUndefined();
  });

  it('refuses a field name with characters outside the token set', () => {
    expect(ruleOf(['HTTP/1.1 200 OK', 'Bad Name: x'])).toBe(
      'header name "Bad Name" has invalid characters',
    );
    expect(ruleOf(['HTTP/1.1 200 OK', 'Bad(name): x'])).toBe(
      'header name "Bad(name)" has invalid characters',
    );
    expect(ruleOf(['HTTP/1.1 200 OK', 'Name : x'])).toBe(
      'header name "Name " has invalid characters',
    );
    expect(ruleOf(['HTTP/1.1 200 OK', 'A: 1', ' folded: x'])).toBe(
      'header name " folded" has invalid characters',
    );
    expect(ruleOf(['HTTP/1.1 200 OK', 'Caf\u00e9: x'])).toBe(
      'header name "Caf\u00e9" has invalid characters',
    );
  });

  it('refuses a line without a colon or with an empty name', () => {
    expect(ruleOf(['HTTP/1.1 200 OK', 'no colon here'])).toBe(FIELD_RULE);
    expect(ruleOf(['HTTP/1.1 200 OK', ': value'])).toBe(FIELD_RULE);
    expect(ruleOf(['HTTP/1.1 200 OK', 'A: 1', '\tcontinued'])).toBe(FIELD_RULE);
  });
});

describe('parseHead: framing', () => {
  const framing = (lines: string[], method = 'POST') =>
    parse(['HTTP/1.1 200 OK', ...lines], method).framing;

  it('is chunked when chunked is the last transfer coding, over any content-length', () => {
    expect(framing(['Transfer-Encoding: chunked'])).toEqual({ kind: 'chunked' });
    expect(framing(['Transfer-Encoding: Chunked'])).toEqual({ kind: 'chunked' });
    expect(framing(['Transfer-Encoding: gzip, chunked'])).toEqual({ kind: 'chunked' });
    expect(framing(['Transfer-Encoding: gzip', 'Transfer-Encoding: chunked'])).toEqual({
      kind: 'chunked',
    });
    expect(framing(['Content-Length: 5', 'Transfer-Encoding: chunked'])).toEqual({
      kind: 'chunked',
    });
  });

  it('runs to the close when the last transfer coding is not chunked', () => {
    expect(framing(['Transfer-Encoding: gzip'])).toEqual({ kind: 'close' });
    expect(framing(['Transfer-Encoding: chunked, gzip'])).toEqual({ kind: 'close' });
    expect(framing(['Transfer-Encoding: chunked', 'Transfer-Encoding: gzip'])).toEqual({
      kind: 'close',
    });
    expect(framing(['Transfer-Encoding: gzip', 'Content-Length: 5'])).toEqual({ kind: 'close' });
  });

  it('takes the content-length, repeated identical values included', () => {
    expect(framing(['Content-Length: 5'])).toEqual({ kind: 'length', bytes: 5 });
    expect(framing(['Content-Length: 0'])).toEqual({ kind: 'length', bytes: 0 });
    expect(framing(['Content-Length: 007'])).toEqual({ kind: 'length', bytes: 7 });
    expect(framing(['Content-Length: 5, 5'])).toEqual({ kind: 'length', bytes: 5 });
    expect(framing(['Content-Length: 5', 'content-length: 5'])).toEqual({
      kind: 'length',
      bytes: 5,
    });
    expect(framing(['Content-Length: 999999999999999'])).toEqual({
      kind: 'length',
      bytes: 999_999_999_999_999,
    });
  });

  it('refuses disagreeing or non-numeric content-lengths', () => {
    const rule = (value: string) => ruleOf(['HTTP/1.1 200 OK', `Content-Length: ${value}`]);
    expect(rule('5, 6')).toBe('content-length values disagree');
    expect(rule('5,')).toBe('content-length values disagree');
    expect(ruleOf(['HTTP/1.1 200 OK', 'Content-Length: 5', 'Content-Length: 6'])).toBe(
      'content-length values disagree',
    );
    for (const value of ['', 'abc', '-1', '+5', '5.0', '0x10', '1e3', '5 5', '1000000000000000']) {
      expect(rule(value), value).toBe('content-length must be a decimal number');
    }
  });

  it('has no body for HEAD, 1xx, 204 and 304, whatever the fields say', () => {
    expect(framing(['Content-Length: 5'], 'HEAD')).toEqual({ kind: 'none' });
    for (const status of [100, 101, 103, 199, 204, 304]) {
      const head = parse([`HTTP/1.1 ${status} X`, 'Content-Length: 5']);
      expect(head.framing, String(status)).toEqual({ kind: 'none' });
    }
    expect(parse(['HTTP/1.1 204', 'Transfer-Encoding: chunked']).framing).toEqual({ kind: 'none' });
    expect(parse(['HTTP/1.1 205 Reset', 'Content-Length: 0']).framing).toEqual({
      kind: 'length',
      bytes: 0,
    });
  });

  it('runs to the close when neither transfer-encoding nor content-length is given', () => {
    expect(framing([])).toEqual({ kind: 'close' });
    expect(framing(['Content-Type: text/plain'])).toEqual({ kind: 'close' });
    expect(framing(['Transfer-Encoding: '])).toEqual({ kind: 'close' });
  });
});

describe('parseHead: keep-alive', () => {
  const keepAlive = (status: string, lines: string[]) => parse([status, ...lines]).keepAlive;

  it('keeps HTTP/1.1 connections unless the server says close', () => {
    expect(keepAlive('HTTP/1.1 200 OK', ['Content-Length: 1'])).toBe(true);
    expect(keepAlive('HTTP/1.1 200 OK', ['Transfer-Encoding: chunked'])).toBe(true);
    expect(keepAlive('HTTP/1.1 204 No Content', [])).toBe(true);
    expect(keepAlive('HTTP/1.1 200 OK', ['Content-Length: 1', 'Connection: close'])).toBe(false);
    expect(keepAlive('HTTP/1.1 200 OK', ['Content-Length: 1', 'Connection: Close'])).toBe(false);
    expect(keepAlive('HTTP/1.1 200 OK', ['Content-Length: 1', 'Connection: upgrade, close'])).toBe(
      false,
    );
    expect(
      keepAlive('HTTP/1.1 200 OK', ['Content-Length: 1', 'Connection: x', 'Connection: close']),
    ).toBe(false);
    expect(keepAlive('HTTP/1.1 200 OK', ['Content-Length: 1', 'Connection: closed'])).toBe(true);
  });

  it('closes after a body framed both ways (chunked wins, the connection is not reused)', () => {
    const head = parse(['HTTP/1.1 200 OK', 'Transfer-Encoding: chunked', 'Content-Length: 5']);
    expect(head.framing).toEqual({ kind: 'chunked' });
    expect(head.keepAlive).toBe(false);
  });

  it('drops HTTP/1.0 connections unless the server says keep-alive', () => {
    expect(keepAlive('HTTP/1.0 200 OK', ['Content-Length: 1'])).toBe(false);
    expect(keepAlive('HTTP/1.0 200 OK', ['Content-Length: 1', 'Connection: keep-alive'])).toBe(
      true,
    );
    expect(keepAlive('HTTP/1.0 200 OK', ['Content-Length: 1', 'Connection: Keep-Alive'])).toBe(
      true,
    );
    expect(
      keepAlive('HTTP/1.0 200 OK', ['Content-Length: 1', 'Connection: keep-alive, close']),
    ).toBe(false);
  });

  it('never reuses a connection whose body runs to the close', () => {
    expect(keepAlive('HTTP/1.1 200 OK', [])).toBe(false);
    expect(keepAlive('HTTP/1.1 200 OK', ['Connection: keep-alive'])).toBe(false);
    expect(keepAlive('HTTP/1.0 200 OK', ['Connection: keep-alive'])).toBe(false);
    expect(keepAlive('HTTP/1.1 200 OK', ['Transfer-Encoding: gzip'])).toBe(false);
  });

  it('reads the timeout from the keep-alive field', () => {
    const seconds = (...values: string[]) =>
      parse(['HTTP/1.1 200 OK', 'Content-Length: 0', ...values.map((v) => `Keep-Alive: ${v}`)])
        .keepAliveSeconds;
    expect(seconds('timeout=5, max=100')).toBe(5);
    expect(seconds('max=100, timeout=7')).toBe(7);
    expect(seconds('max=100,timeout=8')).toBe(8);
    expect(seconds('Timeout=3')).toBe(3);
    expect(seconds('max=1', 'timeout=9')).toBe(9);
    expect(seconds('timeout=0')).toBe(0);
    expect(seconds('max=5')).toBeUndefined();
    expect(seconds('timeout=abc')).toBeUndefined();
    expect(seconds('xtimeout=5')).toBeUndefined();
    const without = parse(['HTTP/1.1 200 OK', 'Content-Length: 0']);
    expect('keepAliveSeconds' in without).toBe(false);
  });

  it('gives the whole head for a typical chunked stream response', () => {
    expect(
      parse([
        'HTTP/1.1 200 OK',
        'Content-Type: text/plain; charset=utf-8',
        'Transfer-Encoding: chunked',
        'Connection: keep-alive',
        'Keep-Alive: timeout=5',
      ]),
    ).toEqual({
      status: 200,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'transfer-encoding': 'chunked',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
      },
      framing: { kind: 'chunked' },
      keepAlive: true,
      keepAliveSeconds: 5,
    });
  });
});
