import { describe, expect, it } from 'vitest';
import {
  chunkText,
  countTokens,
  splitIntoPieces,
} from '../../../src/local-service/knowledge/index.js';
import { cutChunks } from '../../../src/local-service/knowledge/chunk.js';

const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');

function sentence(topic: string, n: number): string {
  return `The ${topic} section explains point number ${n} in plain words for readers.`;
}

describe('countTokens', () => {
  it('estimates one token per four characters, one per CJK character', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('abcd')).toBe(1);
    expect(countTokens('abcde')).toBe(2);
    expect(countTokens('日本語')).toBe(3);
    expect(countTokens('x'.repeat(1200))).toBe(300);
  });
});

describe('chunkText', () => {
  it('keeps short text whole and gives nothing for empty text', () => {
    expect(chunkText('Hello there.\n\nSecond paragraph.')).toEqual([
      'Hello there.\n\nSecond paragraph.',
    ]);
    expect(chunkText('  \n\n ')).toEqual([]);
  });

  it('cuts on paragraph boundaries within the size, losing and splitting no word', () => {
    const paragraphs = Array.from({ length: 40 }, (_, p) =>
      Array.from({ length: 3 }, (_, s) => sentence(`topic${p}`, s)).join(' '),
    );
    const text = paragraphs.join('\n\n');
    const chunks = chunkText(text, 100);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(countTokens(chunk)).toBeLessThanOrEqual(100);
      // every chunk is a run of whole paragraphs
      for (const part of chunk.split('\n\n')) expect(paragraphs).toContain(part);
    }
    expect(words(chunks.join(' '))).toEqual(words(text));
  });

  it('splits an over-long paragraph at sentence ends, then at spaces', () => {
    const long = Array.from({ length: 30 }, (_, i) => sentence('long', i)).join(' ');
    const chunks = chunkText(long, 60);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(countTokens(chunk)).toBeLessThanOrEqual(60);
      expect(chunk).toMatch(/^The long section .*readers\.$/);
    }
    const run = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const pieces = chunkText(run, 50);
    expect(words(pieces.join(' '))).toEqual(words(run));
    for (const piece of pieces) expect(countTokens(piece)).toBeLessThanOrEqual(50);
  });

  it('cuts a single word longer than a chunk only because it must', () => {
    const blob = 'A'.repeat(1000);
    expect(chunkText(blob, 100)).toEqual(['A'.repeat(400), 'A'.repeat(400), 'A'.repeat(200)]);
  });

  it('cuts at every heading and gives each chunk its heading path', () => {
    const body = (name: string) => Array.from({ length: 4 }, (_, i) => sentence(name, i)).join(' ');
    const text = [
      '# Install',
      body('install'),
      '## Configure',
      body('configure'),
      '# Use',
      body('use'),
      'Options',
      body('options'),
    ].join('\n\n');
    expect(cutChunks(text, 120)).toEqual([
      { text: body('install'), headings: ['Install'] },
      { text: body('configure'), headings: ['Install', 'Configure'] },
      { text: body('use'), headings: ['Use'] },
      // A short plain line with no ending reads as a heading below any written one.
      { text: body('options'), headings: ['Use', 'Options'] },
    ]);
  });

  it('reads an HTML heading element as a heading of its level, not as a chunk of its own', () => {
    const text = [
      '<h1 align="center">Fastify</h1>',
      '## Hooks',
      'Hooks listen to events.',
      '<h3>On <code>close</code></h3>',
      'Runs when the server closes.',
      '<div><h4>Boxed</h4><p>A box.</p></div>',
    ].join('\n\n');
    expect(cutChunks(text)).toEqual([
      { text: 'Hooks listen to events.', headings: ['Fastify', 'Hooks'] },
      // Anything more than one heading element stays text.
      {
        text: 'Runs when the server closes.\n\nBoxed A box.',
        headings: ['Fastify', 'Hooks', 'On close'],
      },
    ]);
  });

  it('keeps short plain lines that head nothing as text, never losing a word', () => {
    const text = 'Alice\n\nBob\n\nCarol';
    expect(cutChunks(text)).toEqual([{ text: 'Alice\n\nBob\n\nCarol', headings: [] }]);
  });

  it('cuts a long paragraph at sentences and a long table under its header', () => {
    const long = Array.from({ length: 12 }, (_, i) => sentence('para', i)).join(' ');
    for (const chunk of chunkText(long, 60)) expect(chunk).toMatch(/^The .*\.$/);
    const rows = Array.from({ length: 40 }, (_, i) => `| key${i} | value number ${i} |`);
    const table = ['| Key | Value |', '| --- | --- |', ...rows].join('\n');
    const pieces = chunkText(table, 60);
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces)
      expect(piece.startsWith('| Key | Value |\n| --- | --- |\n')).toBe(true);
  });
});

describe('chunkText on Markdown', () => {
  const filler = (n: number) =>
    Array.from({ length: n }, (_, i) => sentence(`filler${i}`, i)).join(' ');

  it('never cuts inside a code fence and keeps a ":" lead-in with what it introduces', () => {
    const code = '```sh\nnpm install\n\nnpm start\n```';
    const text = `${filler(4)}\n\nTo start it:\n\n${code}\n\n${filler(3)}`;
    const chunks = chunkText(text, 80);
    const holder = chunks.find((chunk) => chunk.includes('npm install'));
    expect(holder).toContain(`To start it:\n\n${code}`);
  });

  it('cuts a long list between items and a long section after its heading, lines kept', () => {
    const items = Array.from({ length: 30 }, (_, i) => `- ${sentence(`item${i}`, i)}`);
    const chunks = chunkText(`Steps:\n\n${items.join('\n')}`, 100);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks)
      for (const line of chunk.split('\n').filter((l) => l !== '' && l !== 'Steps:'))
        expect(items).toContain(line);
    const section = cutChunks(`## Connecting Slack\n\n${filler(30)}`, 100);
    expect(section.length).toBeGreaterThan(1);
    expect(section.every((chunk) => chunk.headings.join() === 'Connecting Slack')).toBe(true);
  });
});

describe('splitIntoPieces', () => {
  it('cuts a few words at a time and keeps every character', () => {
    const text = '  According to Guide:\n\nRun the installer first. [1.2] Then  start it.\n';
    const pieces = splitIntoPieces(text);
    expect(pieces.join('')).toBe(text);
    expect(pieces).toEqual([
      '  According to Guide:\n\n',
      'Run the installer ',
      'first. [1.2] Then  ',
      'start it.\n',
    ]);
    expect(splitIntoPieces('one two', 1)).toEqual(['one ', 'two']);
    expect(splitIntoPieces('')).toEqual([]);
    expect(splitIntoPieces('😀 é\n').join('')).toBe('😀 é\n');
  });
});

describe('chunkText on padded text', () => {
  // Lines padded with thousands of blanks (a table converted to text) once took minutes: the
  // trailing-blank trim rescanned each run from every position. Linear now (a fraction of a
  // second); the timeout is the guard, far from both so a loaded machine does not trip it.
  // 16 runs of 20,000 blanks: a rescanning trim (/[ \t]+$/gm) takes as long as on the 200 runs
  // of 5,000 this test had (about 22 s here, where a 30 s timeout let it pass), the linear cut a
  // fifth of the time (0.15 s, not 0.75 s): 6 s is 40 times the one and a quarter of the other.
  it('cuts lines padded with 20,000 blanks in linear time', { timeout: 6000 }, () => {
    const text = `${'w'.repeat(5000)}\n${`x${' '.repeat(20_000)}y\n`.repeat(16)}`;
    const chunks = chunkText(text);
    expect(chunks.join('').replace(/\s/g, '')).toBe(`${'w'.repeat(5000)}${'xy'.repeat(16)}`);
  });
});
