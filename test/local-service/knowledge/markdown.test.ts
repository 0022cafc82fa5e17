import { describe, expect, it } from 'vitest';
import { blocksOf } from '../../../src/local-service/knowledge/markdown.js';
import { sourceBlocks } from '../../../src/local-service/knowledge/markdown-source.js';

const DOC = [
  '# Guide',
  '',
  'Setup',
  '=====',
  '',
  'First line of a paragraph',
  'wrapped onto a second line.',
  '',
  '<!-- a comment -->',
  'To install:',
  '',
  '```sh',
  'npm install',
  '',
  'npm start',
  '```',
  '',
  '- one item',
  '  continued here',
  '2. a numbered item',
  '',
  '| Name | Meaning | Default |',
  '| ---- | ------- | ------- |',
  '| `PORT` | The port \\| number | 3000 |',
  '',
  '---',
  '> quoted words',
].join('\n');

describe('blocksOf', () => {
  it('reads headings, paragraphs, list items, table rows and whole code fences', () => {
    expect(blocksOf(DOC)).toEqual([
      { kind: 'heading', text: 'Guide', depth: 1 },
      { kind: 'heading', text: 'Setup', depth: 1 },
      { kind: 'paragraph', text: 'First line of a paragraph\nwrapped onto a second line.' },
      { kind: 'paragraph', text: 'To install:' },
      { kind: 'code', text: '```sh\nnpm install\n\nnpm start\n```' },
      { kind: 'item', text: 'one item continued here', bullet: '-' },
      { kind: 'item', text: 'a numbered item', bullet: '2.' },
      {
        kind: 'row',
        text: '`PORT` | The port | number | 3000',
        cells: ['`PORT`', 'The port | number', '3000'],
        header: ['Name', 'Meaning', 'Default'],
      },
      { kind: 'paragraph', text: 'quoted words' },
    ]);
  });

  it('keeps an unclosed fence to the end of the text, and closes it', () => {
    expect(blocksOf('Run:\n\n```\nnpm test\n\nmore')).toEqual([
      { kind: 'paragraph', text: 'Run:' },
      { kind: 'code', text: '```\nnpm test\n\nmore\n```' },
    ]);
  });
});

describe('sourceBlocks', () => {
  it('keeps a code fence whole, blank lines and inner fences included', () => {
    expect(sourceBlocks('Intro.\n\n```\na\n\n```js\nb\n```\nAfter.\n\n\nEnd.  ')).toEqual([
      { kind: 'paragraph', text: 'Intro.' },
      { kind: 'code', text: '````\na\n\n```js\nb\n````' },
      { kind: 'paragraph', text: 'After.' },
      { kind: 'paragraph', text: 'End.' },
    ]);
  });

  it('writes setext headings with #, indented code fenced, and closes an open fence', () => {
    const text = 'Setup\n=====\n\nRun:\n\n    npm install\n\n```sh\nnpm test';
    expect(sourceBlocks(text)).toEqual([
      { kind: 'heading', text: '# Setup', heading: 'Setup' },
      { kind: 'paragraph', text: 'Run:' },
      { kind: 'code', text: '```\nnpm install\n```' },
      { kind: 'code', text: '```sh\nnpm test\n```' },
    ]);
  });

  it('resolves reference links, drops definitions, badges, comments and tags', () => {
    const text = [
      '[![npm](https://img.shields.io/npm/v/x.svg)](https://npm.im/x) [![ci](b.svg)][ci]',
      '',
      'Read [the guide][guide] or [Guide] \\. <b>now</b>.',
      '',
      '<!-- hidden -->',
      '<p align="center">Fast</p>',
      '',
      '- see [the guide][guide]',
      '',
      '[guide]: https://example.com/guide',
      '[ci]: https://ci.example.com',
    ].join('\n');
    expect(sourceBlocks(text)).toEqual([
      {
        kind: 'paragraph',
        text: 'Read [the guide](https://example.com/guide) or [Guide](https://example.com/guide) . now.',
      },
      { kind: 'paragraph', text: 'Fast' },
      { kind: 'list', text: '- see [the guide](https://example.com/guide)' },
    ]);
  });
});
