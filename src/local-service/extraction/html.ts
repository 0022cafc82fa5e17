// HTML → Markdown-shaped text with html-to-text, so the chunker sees the page's structure:
// headings as `#` headings, <pre> as fenced code, lists as items; navigation, page furniture
// (header bars, sidebars, footers), scripts, styles, forms and images dropped; links keep
// their words, not their addresses.
import { convert, type FormatCallback, type HtmlToTextOptions } from 'html-to-text';

type BlockTextBuilder = Parameters<FormatCallback>[2];

const SKIP = [
  'head',
  'nav',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'form',
  'button',
  'img',
  'iframe',
  'aside',
  'footer',
];

const block = (builder: BlockTextBuilder, literal: string, before: number, after: number) => {
  builder.openBlock({ leadingLineBreaks: before });
  builder.addLiteral(literal);
  builder.closeBlock({ trailingLineBreaks: after });
};

/** `<h2>` → `## …`, so the heading starts a section. */
const markdownHeading: FormatCallback = (elem, walk, builder, options) => {
  builder.openBlock({ leadingLineBreaks: 2 });
  builder.addLiteral(`${'#'.repeat(Number(options.level ?? 2))} `);
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 2 });
};

/** `<pre>` → a fenced block, its lines as they are. */
const fencedCode: FormatCallback = (elem, walk, builder) => {
  block(builder, '```', 2, 1);
  builder.openBlock({ isPre: true, leadingLineBreaks: 1 });
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 1 });
  block(builder, '```', 1, 2);
};

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  formatters: { markdownHeading, fencedCode },
  selectors: [
    ...SKIP.map((selector) => ({ selector, format: 'skip' })),
    { selector: 'a', options: { ignoreHref: true } },
    ...[1, 2, 3, 4, 5, 6].map((level) => ({
      selector: `h${level}`,
      format: 'markdownHeading',
      options: { level },
    })),
    { selector: 'pre', format: 'fencedCode' },
    { selector: 'table', format: 'dataTable' },
  ],
};

const TITLE = /<title[^>]*>([\s\S]*?)<\/title\s*>/i;

export function htmlToText(html: string): { text: string; title?: string } {
  const text = convert(html, OPTIONS)
    .replace(/(?<![ \t])[ \t]+$/gm, '') // linear: see rawParagraphs in markdown.ts
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const rawTitle = TITLE.exec(html)?.[1];
  // The title's entities are decoded by the same converter, so "&amp;" reads as "&".
  const title =
    rawTitle === undefined
      ? ''
      : convert(rawTitle, { wordwrap: false }).replace(/\s+/g, ' ').trim();
  return title === '' ? { text } : { text, title };
}
