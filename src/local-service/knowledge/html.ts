// HTML → readable text with html-to-text: navigation, scripts, styles, forms and images
// dropped; headings and paragraph breaks kept (headings as their own paragraphs, not
// uppercased); links keep their words, not their addresses.
import { convert, type HtmlToTextOptions } from 'html-to-text';

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
];

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    ...SKIP.map((selector) => ({ selector, format: 'skip' })),
    { selector: 'a', options: { ignoreHref: true } },
    ...[1, 2, 3, 4, 5, 6].map((level) => ({
      selector: `h${level}`,
      options: { uppercase: false, leadingLineBreaks: 2, trailingLineBreaks: 2 },
    })),
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
