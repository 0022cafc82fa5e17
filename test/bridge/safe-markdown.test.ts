// The safe view of a growing answer never takes back text it already showed: streamed piece by
// piece, each view (minus the closers it appends) extends the previous one. Slack's native
// stream can only append, so a view that shrinks forces it back to post-and-edit.
import { describe, expect, it } from 'vitest';
import { safeMarkdown, safeMarkdownParts } from '../../src/bridge/safe-markdown.js';

const ANSWER = [
  'Read ',
  '[the setup guide](https://docs.example.com/setup?step=2) first. ',
  'It covers **installation**, **configuration with `config.yml`** and more [1.2].\n\n',
  'Key points:  \n',
  '* **Tokens** expire after *one hour* [2.1]\n',
  '* See [the FAQ](https://example.com/faq) or [this [nested] note] for details.\n',
  '* Trailing spaces here   \n',
  '1. Run `npm install --save chatbridge` then `npm start`\n\n',
  'Example:\n',
  '```ts\n',
  'const link = "[not](a link)";\n',
  'const bold = "**not bold";\n',
  '```\n\n',
  '   ~~~\n',
  'indented tilde fence with ``` inside\n',
  '   ~~~\n',
  'A line with `inline [x](y) code` and **bold [link](https://b.example/x) inside**.\n',
  'An unclosed-looking * star and a ~~strike~~ and a \\*escaped\\* one [3.1][3.2].\n',
  '````md\n',
  '```\nnested fence\n```\n',
  '````\n',
  'Done: see [docs](https://example.com/a_(b)) — ',
  'and **final `words`** [1.2].',
].join('');

const CLOSERS = /^(?:\n?(?:`{3,}|~{3,})|`?(?:\*\*)?)$/;

/** Asserts the growth rule on every step (expect() only on a failure: thousands of steps). */
function checkGrowth(text: string, steps: string[]): void {
  let previous = '';
  for (const raw of steps) {
    const view = safeMarkdownParts(raw);
    const problem =
      safeMarkdown(raw) !== view.body + view.closers
        ? 'safeMarkdown is not body + closers'
        : !raw.startsWith(view.body)
          ? 'body is not a prefix of the raw text'
          : !CLOSERS.test(view.closers)
            ? `closers ${JSON.stringify(view.closers)} are not closing markers`
            : !view.body.startsWith(previous)
              ? `body ${JSON.stringify(view.body.slice(-40))} does not extend ` +
                JSON.stringify(previous.slice(-40))
              : undefined;
    if (problem) expect.fail(`after raw ${JSON.stringify(raw.slice(-40))}: ${problem}`);
    previous = view.body;
  }
  expect(safeMarkdown(text)).toBe(text);
}

describe('safeMarkdown on a growing answer', () => {
  // One character at a time is every chunking at once: the view is a function of the text
  // alone, every prefix is checked, and a view that extends the one before it extends every
  // earlier one. (300 random chunkings ran here too; they could not fail where this passes.)
  it('only ever extends what it showed, one character at a time', () => {
    checkGrowth(ANSWER, charSteps(ANSWER));
  });

  it('keeps shown whitespace when a link or bold starts after it', () => {
    expect(safeMarkdown('Read ')).toBe('Read ');
    expect(safeMarkdown('Read [the')).toBe('Read ');
    expect(safeMarkdown('Read [the docs](https://exa')).toBe('Read ');
    expect(safeMarkdown('Read **')).toBe('Read ');
    expect(safeMarkdown('Read **bold')).toBe('Read **bold**');
    // Whitespace inside an open bold is held back: "**bold **" would not render as bold.
    expect(safeMarkdown('Read **bold ')).toBe('Read **bold**');
  });

  it('holds back what may still turn into markup: "[x]" before "(", a run of * or `', () => {
    expect(safeMarkdown('See [the docs]')).toBe('See ');
    expect(safeMarkdown('See [the docs] and')).toBe('See [the docs] and');
    expect(safeMarkdown('Run:\n``')).toBe('Run:\n');
    expect(safeMarkdown('Run:\n   ```')).toBe('Run:\n   ');
    expect(safeMarkdown('a *')).toBe('a ');
    expect(safeMarkdown('`code`')).toBe('`code`');
  });
});

function charSteps(text: string): string[] {
  return Array.from({ length: text.length }, (_, i) => text.slice(0, i + 1));
}
