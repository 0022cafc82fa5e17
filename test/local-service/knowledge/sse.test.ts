import { describe, expect, it } from 'vitest';
import { sseData } from '../../../src/local-service/knowledge/sse.js';

/** The bytes of `text`, cut every `size` bytes (multi-byte characters split on purpose). */
async function* cut(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function events(text: string, size: number): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(cut(text, size))) out.push(data);
  return out;
}

describe('sseData', () => {
  it('reads events whatever the line ends, comments and multi-line data', async () => {
    const stream = ': keep-alive\r\ndata: one\r\n\r\ndata: two\rdata: lines\r\rdata:three\n\n';
    for (const size of [1, 2, 3, 7, 1000]) {
      expect(await events(stream, size)).toEqual(['one', 'two\nlines', 'three']);
    }
  });

  it('keeps characters split across chunks, and an event the stream ended without a blank line', async () => {
    expect(await events('data: naïve 東京 😀\n\ndata: last', 1)).toEqual(['naïve 東京 😀', 'last']);
  });

  it('reads a 1 MB event sent in 16-byte chunks whole', async () => {
    const big = 'x'.repeat(1024 * 1024);
    expect(await events(`data: ${big}\n\n`, 16)).toEqual([big]);
  });
});
