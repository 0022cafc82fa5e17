import { describe, expect, it } from 'vitest';
import { codeEntries } from '../../../src/local-service/knowledge/code-entries.js';
import { composeAnswer, type Passage } from '../../../src/local-service/knowledge/index.js';

const CONFIG = [
  '```js',
  '{',
  '  // `url` is the server URL for the request',
  "  url: '/user',",
  '',
  '  // `headers` are custom headers to be sent',
  "  headers: {'X-Requested-With': 'XMLHttpRequest'},",
  '',
  '  // `timeout` specifies the number of milliseconds before the request times out.',
  '  // If the request takes longer than `timeout`, it is aborted.',
  '  timeout: 1000, // default is `0` (no timeout)',
  '',
  '  withCredentials: false, // default',
  '',
  '  "deep": {',
  '    "prop": "2"',
  '  },',
  '',
  '  // `adapter` allows custom handling of requests',
  '  adapter: function (config) {',
  '    /* ... */',
  '  },',
  '}',
  '```',
].join('\n');

/** The timeout option of CONFIG, as an entry shows it. */
const TIMEOUT_ENTRY = [
  '```js',
  '// `timeout` specifies the number of milliseconds before the request times out.',
  '// If the request takes longer than `timeout`, it is aborted.',
  'timeout: 1000, // default is `0` (no timeout)',
  '```',
].join('\n');

describe('codeEntries', () => {
  it('reads each documented option of a long block with its comments, as a closed fence', () => {
    const entries = codeEntries(CONFIG);
    expect(entries.map((entry) => entry.snippet)).toEqual([
      "```js\n// `url` is the server URL for the request\nurl: '/user',\n```",
      "```js\n// `headers` are custom headers to be sent\nheaders: {'X-Requested-With': 'XMLHttpRequest'},\n```",
      TIMEOUT_ENTRY,
      '```js\nwithCredentials: false, // default\n```',
      [
        '```js',
        '// `adapter` allows custom handling of requests',
        'adapter: function (config) {',
        '  /* ... */',
        '},',
        '```',
      ].join('\n'),
    ]);
    expect(entries[2]!.words).toContain('no timeout');
  });

  it('leaves short blocks whole (their introduction shows them) and data without comments', () => {
    expect(codeEntries('```js\n// the port\nport: 3000,\n```')).toEqual([]);
    const data = [
      '```json',
      '{',
      ...Array.from({ length: 12 }, (_, i) => `  "k${i}": ${i},`),
      '}',
      '```',
    ];
    expect(codeEntries(data.join('\n'))).toEqual([]);
  });
});

describe('composeAnswer with a long options block', () => {
  it('answers "what is the default X" with the option and its comments, not the whole block', () => {
    const passage: Passage = {
      sourceUuid: 'readme',
      title: 'README.md',
      fileName: 'README.md',
      type: 'upload',
      chunkIndex: 3,
      section: 'Request config',
      text: `These are the options for making requests.\n\n${CONFIG}`,
      score: 1,
    };
    const answer = composeAnswer("what's the default timeout?", [passage], { citations: false });
    expect(answer.text).toBe(`According to README.md:\n\n${TIMEOUT_ENTRY}`);
  });
});
