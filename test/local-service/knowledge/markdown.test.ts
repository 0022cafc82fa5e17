import { describe, expect, it } from 'vitest';
import {
  blocksOf,
  headingOf,
  portableInline,
  rawParagraphs,
} from '../../../src/local-service/knowledge/markdown.js';
import { splitSentences } from '../../../src/local-service/knowledge/sentences.js';

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
      { kind: 'heading', text: 'Guide' },
      { kind: 'heading', text: 'Setup' },
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

  it('keeps an unclosed fence to the end of the text', () => {
    expect(blocksOf('Run:\n\n```\nnpm test\n\nmore')).toEqual([
      { kind: 'paragraph', text: 'Run:' },
      { kind: 'code', text: '```\nnpm test\n\nmore' },
    ]);
  });
});

describe('rawParagraphs', () => {
  it('splits at blank lines but never inside a code fence', () => {
    expect(rawParagraphs('Intro.\n\n```\na\n\nb\n```\nAfter.\n\n\nEnd.  ')).toEqual([
      'Intro.',
      '```\na\n\nb\n```',
      'After.',
      'End.',
    ]);
    expect(headingOf('## Connecting Slack')).toBe('Connecting Slack');
    expect(headingOf('Plain words')).toBeUndefined();
  });
});

describe('portableInline', () => {
  it('unwraps relative links and images, drops tags, keeps code spans and web links', () => {
    expect(
      portableInline(
        'See [the guide](docs/slack.md), [site](https://x.io) and ![logo](a.png) <b>now</b> `<tag>` <https://a.b>',
      ),
    ).toBe('See the guide, [site](https://x.io) and logo now `<tag>` <https://a.b>');
  });
});

describe('splitSentences', () => {
  it('keeps a quoted question inside its sentence and reads a line-end colon as a wrap', () => {
    expect(splitSentences('Ask it "How do I start?" and the answer comes. Done.')).toEqual([
      'Ask it "How do I start?" and the answer comes.',
      'Done.',
    ]);
    expect(
      splitSentences('It starts every platform whose tokens are present:\nSlack first.'),
    ).toEqual(['It starts every platform whose tokens are present: Slack first.']);
    // A full stop still ends a sentence before a lowercase name.
    expect(splitSentences('It works offline. chatbridge also ships a service.')).toEqual([
      'It works offline.',
      'chatbridge also ships a service.',
    ]);
  });
});
