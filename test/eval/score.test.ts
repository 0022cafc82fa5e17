// The judge of `npm run eval`: key facts, the "could not find" notice and each bad ending,
// on small texts whose verdict is known.
import { describe, expect, it } from 'vitest';
import { hasFact, isNotFound, normalizeForEndings, problemsOf } from '../../eval/score.js';

const SOURCE = normalizeForEndings(
  [
    '# Options',
    '',
    'When `true`, Fastify calls the handler with the parsed body.',
    '',
    '- `timeout`: the number of milliseconds to wait (default: `5000`)',
    '- Lightweight',
    '',
    '| option | default | meaning |',
    '| `dot` | `false` | Enable dotfile matching. |',
  ].join('\n'),
);

const kinds = (answer: string) => problemsOf(answer, SOURCE).map((p) => p.kind);

describe('key facts', () => {
  it('are found case-insensitively with whitespace folded, and citation markers ignored', () => {
    expect(hasFact('The default is `5000`\n milliseconds.', '`5000`   MILLISECONDS')).toBe(true);
    expect(hasFact('Set it with [1.2] options.timeout.', 'with options.timeout')).toBe(true);
  });

  it('may be regular expressions between slashes', () => {
    expect(hasFact('Defaults to 104857600 bytes', '/104857600|100 MiB/')).toBe(true);
    expect(hasFact('Defaults to 10 MB', '/104857600|100 MiB/')).toBe(false);
  });
});

describe('the "could not find" notice', () => {
  it('is recognised in the service\u2019s words and close variants', () => {
    expect(isNotFound('I could not find that in my sources.')).toBe(true);
    expect(isNotFound("Sorry, I couldn't find anything about that.")).toBe(true);
    expect(isNotFound('Set `timeout` to 0 to wait forever.')).toBe(false);
  });
});

describe('bad endings', () => {
  it('finds none in sentences that end where their source ends', () => {
    expect(
      kinds(
        'According to options.md: When `true`, Fastify calls the handler with the parsed body. [1.1]\n\n' +
          '`timeout`: the number of milliseconds to wait (default: `5000`). Lightweight. Enable dotfile matching.',
      ),
    ).toEqual([]);
  });

  it('reads a numbered list, a link wrapped over two lines, a quote and emphasis as the service writes them', () => {
    const source = normalizeForEndings(
      [
        '4. Add a `preinstall` script, like the one shown above',
        '5. Remove it from your `dependencies`',
        '',
        'See the [Validation and',
        '  Serialization](./Validation.md#schema) documentation.',
        '',
        'This is called *route prefixing*.',
        '',
        '> Note:',
        '> The documentation for `onSend` is detailed in',
        '> [Hooks](./Hooks.md). To send a response early, see the hooks.',
      ].join('\n'),
    );
    const judged = (answer: string) => problemsOf(answer, source).map((p) => p.kind);
    expect(
      judged(
        '4. Add a `preinstall` script, like the one shown above\n5. Remove it from your `dependencies`',
      ),
    ).toEqual([]);
    expect(judged('See the Validation and Serialization documentation.')).toEqual([]);
    expect(judged('This is called _route prefixing_.')).toEqual([]);
    expect(judged('Note: The documentation for `onSend` is detailed in Hooks.')).toEqual([]);
    // Still judged: a full stop the source never wrote after an item.
    expect(judged('4. Add a `preinstall` script, like the one.')).toEqual(['cut-sentence']);
  });

  it('reads a mark standing alone where its source writes it so as the source\u2019s typography', () => {
    const source = normalizeForEndings(
      'Here is an example :\n\n```js\nmock()\n```\n\nCall the `enable()` method :',
    );
    const judged = (answer: string) => problemsOf(answer, source).map((p) => p.kind);
    expect(judged('Here is an example :\n\n```js\nmock()\n```')).toEqual([]);
    expect(judged('Call the `enable()` method :\n\n```js\nmock()\n```')).toEqual([]);
    // Still judged: a mark the source never set apart, or after another word.
    expect(judged('Here is an example . Then go on.')).toContain('stray-punctuation');
    expect(judged('Here is a sample :\n\n```js\nmock()\n```')).toContain('stray-punctuation');
  });

  it('finds a sentence cut where its source goes on', () => {
    expect(kinds('According to options.md: When `true`, Fastify calls the. [1.1]')).toEqual([
      'cut-sentence',
    ]);
  });

  it('finds a sentence whose last words are in no source', () => {
    expect(kinds('The handler is called twice.')).toEqual(['unsourced-ending']);
  });

  it('finds an answer that stops mid-sentence and an open code fence', () => {
    expect(kinds('Run this:\n\n```js\nconst x = 1;')).toEqual(
      expect.arrayContaining(['ends-mid-sentence', 'open-fence']),
    );
  });

  it('lets an answer end without a mark where its source line ends, not where it goes on', () => {
    expect(
      kinds(
        'According to x.md: When `true`, Fastify calls the handler with the parsed body.\n\n- `timeout`: the number of milliseconds to wait (default: `5000`)',
      ),
    ).toEqual([]);
    expect(kinds('According to x.md:\n\n- `timeout`: the number of milliseconds')).toContain(
      'ends-mid-sentence',
    );
  });

  it('finds an empty code block', () => {
    expect(kinds('Examples:\n\n```js\n\n```')).toContain('empty-code-block');
    expect(kinds('Lightweight.\n\n```js\nconst x = 1;\n```')).toEqual([]);
  });

  it.each([
    ['[![npm](https://img.shields.io/npm/v/x.svg)](https://npmjs.com/x) Lightweight.', 'badge'],
    ['See [the options][opts] for the rest. Lightweight.', 'reference-link'],
    ['See [Options](#options). Lightweight.', 'anchor-link'],
    ['Call it with 1\\. Lightweight.', 'escape'],
    ['<p align="center">Lightweight.', 'html'],
    ['Lightweight. ## Install now.', 'heading'],
    ['[!NOTE]\nLightweight.', 'admonition'],
    ['Lightweight. . Enable dotfile matching.', 'stray-punctuation'],
    ['Enable dotfile matching (as `dot` says. Lightweight.', 'unbalanced-parentheses'],
    ['Lightweight. }); // verify var cert = fs.readFileSync(). Lightweight.', 'code-in-prose'],
    ['`dot` | `false` | Enable dotfile matching.', 'table-remnant'],
    ['Enable dotfile matching.Set it on.', 'glued-sentences'],
  ])('finds leftover markdown or broken prose in %j', (answer, kind) => {
    expect(kinds(answer)).toContain(kind);
  });

  it('leaves code blocks and inline code alone', () => {
    expect(
      kinds('Lightweight.\n\n```html\n<p>[x][y] \\. ](#a) }); var a = 1;</p>\n```\n\nLightweight.'),
    ).toEqual([]);
    // No corpus given: only the answer's own form is judged.
    expect(problemsOf('Use `<br/>` or `a | b | c`. Then go on.', undefined)).toEqual([]);
  });

  it('does not judge the service\u2019s own "could not find" sentence as taken from a source', () => {
    expect(kinds('I could not find that in my sources.')).toEqual([]);
  });
});
