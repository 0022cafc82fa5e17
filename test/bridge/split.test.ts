import { describe, expect, it } from 'vitest';
import { scanFences } from '../../src/bridge/fences.js';
import { safeMarkdown } from '../../src/bridge/safe-markdown.js';
import { splitText } from '../../src/bridge/split.js';

/** Every fence line of a part must pair up: an even count of fence lines. */
function balanced(text: string): boolean {
  return scanFences(text).every((r) => r.closeStart !== undefined);
}

function prose(words: number, seed = 1): string {
  const vocab = ['alpha', 'beta', 'gamma', 'delta', 'answer', 'source', 'bridge', 'thread'];
  let out = '';
  for (let i = 0; i < words; i++) {
    out += vocab[(i * 7 + seed) % vocab.length];
    out += i % 12 === 11 ? '. ' : ' ';
  }
  return out.trim();
}

describe('splitText', () => {
  it('keeps a short text whole', () => {
    const parts = splitText('Hello there.', 2000);
    expect(parts.map((p) => p.text)).toEqual(['Hello there.']);
  });

  it('splits a 10,000-char answer with a code block across the boundary', () => {
    const code = Array.from(
      { length: 60 },
      (_, i) => `  const value${i} = compute(${i}); // step`,
    ).join('\n');
    let text = `${prose(250)}\n\n${prose(30, 3)}\n\n\`\`\`ts\n${code}\n\`\`\`\n\n`;
    while (text.length < 10_000) text += `${prose(40, text.length % 5)}\n\n`;
    text = text.slice(0, 10_000);
    const fence = scanFences(text)[0]!;
    const parts = splitText(text, 2000);

    expect(parts.length).toBeGreaterThanOrEqual(5);
    for (const part of parts) {
      expect(part.text.length).toBeLessThanOrEqual(2000);
      expect(balanced(part.text)).toBe(true);
    }
    expect(parts.map((p) => p.body).join('')).toBe(text);
    // The code block really was cut: one part closes it, the next re-opens it with its language.
    const cutAt = parts.findIndex((p) => p.suffix !== '');
    expect(cutAt).toBeGreaterThanOrEqual(0);
    expect(parts[cutAt]!.end).toBeGreaterThan(fence.contentStart);
    expect(parts[cutAt]!.end).toBeLessThan(fence.closeStart!);
    expect(parts[cutAt]!.text.endsWith('\n```')).toBe(true);
    expect(parts[cutAt + 1]!.prefix).toBe('```ts\n');
    // Cut at a line break inside code, never mid-line.
    expect(parts[cutAt]!.body.endsWith('\n')).toBe(true);
  });

  it('prefers a paragraph break, then a sentence end, then a space', () => {
    const para = `${'a'.repeat(60)}\n\n${'b'.repeat(60)}`;
    expect(splitText(para, 100)[0]!.body).toBe(`${'a'.repeat(60)}\n\n`);
    const sentences = `${'word '.repeat(12)}ends here. ${'more '.repeat(12)}`;
    expect(splitText(sentences, 100)[0]!.body.endsWith('ends here. ')).toBe(true);
    const words = 'word '.repeat(40);
    const first = splitText(words, 100)[0]!.body;
    expect(first.endsWith(' ')).toBe(true);
    expect(first.length).toBeLessThanOrEqual(100);
  });

  it('cuts a text without any boundary hard, but never inside a surrogate pair', () => {
    const emoji = '😀'.repeat(120);
    const parts = splitText(emoji, 101);
    expect(parts.map((p) => p.body).join('')).toBe(emoji);
    for (const part of parts) {
      expect(part.text.length).toBeLessThanOrEqual(101);
      expect(part.text).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
  });

  it('re-opens tilde fences and long backtick fences with their own marker', () => {
    const code = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const text = `~~~~python\n${code}\n~~~~\nafter`;
    const parts = splitText(text, 120);
    expect(parts.map((p) => p.body).join('')).toBe(text);
    for (const part of parts) expect(balanced(part.text)).toBe(true);
    expect(parts[1]!.prefix).toBe('~~~~python\n');
  });

  it('starts from an offset and leaves room for a notice in the last part', () => {
    const text = `${'x '.repeat(30)}${'y '.repeat(45)}`;
    const parts = splitText(text, 100, { from: 60, lastReserve: 20 });
    expect(parts.map((p) => p.body).join('')).toBe(text.slice(60));
    expect(parts[parts.length - 1]!.text.length).toBeLessThanOrEqual(80);
  });
});

describe('safeMarkdown', () => {
  it('closes an open code fence', () => {
    expect(safeMarkdown('Look:\n```js\nconst a = 1;')).toBe('Look:\n```js\nconst a = 1;\n```');
    expect(safeMarkdown('Look:\n```js\n')).toBe('Look:\n```js\n```');
  });

  it('hides a fence opener still being written', () => {
    expect(safeMarkdown('Look:\n```py')).toBe('Look:\n');
  });

  it('closes unmatched bold and inline code', () => {
    expect(safeMarkdown('This is **very')).toBe('This is **very**');
    expect(safeMarkdown('Run `npm i')).toBe('Run `npm i`');
    expect(safeMarkdown('**bold** and `code` done')).toBe('**bold** and `code` done');
    expect(safeMarkdown('Trailing **')).toBe('Trailing ');
  });

  it('hides a half-written link until it is complete', () => {
    expect(safeMarkdown('See [the docs](https://exa')).toBe('See ');
    expect(safeMarkdown('See [the do')).toBe('See ');
    expect(safeMarkdown('See [the docs](https://example.com) now')).toBe(
      'See [the docs](https://example.com) now',
    );
  });

  it('leaves markdown inside a closed code block alone', () => {
    const text = '```\n**not bold\n```\nafter';
    expect(safeMarkdown(text)).toBe(text);
  });
});
