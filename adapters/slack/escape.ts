// Text that is not ours (answers, chatbot names, titles) as Slack must receive it, so it can
// never ping (<!channel>, <!here>, <!subteam^…>, <@U…>), link a channel (<#C…>) or show one
// address and open another (<http://evil|trusted>, [trusted.example](http://evil.example)).
//
// Slack reads &, < and > as control characters in every text it formats, and asks for them as
// &amp;, &lt;, &gt; ("Escaping text", docs.slack.dev/messaging/formatting-message-text). The
// markdown of markdown_text and markdown blocks is standard markdown, which also reads those
// entities back as the characters, so the escaped text shows exactly as written in both. Every
// "<" is escaped, which alone makes each <…> form plain text; the one ">" kept is a blockquote
// marker at the start of a line, which markdown needs and which cannot open anything.
//
// Escaping is decided character by character from what comes before, never after: the escaped
// form of a text is a prefix of the escaped form of any longer text, so a stream that may only
// append (chat.appendStream) keeps appending.
import { unmaskSpoofedLinks } from '../shared/masked-links.js';
import { CHAT } from './limits.js';

/** &, <, > as entities: mrkdwn text, the `text` fallback, anything Slack formats. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The leading blockquote markers of a line ("> ", ">> ", "  > > "), kept as markdown. */
const QUOTE_MARKERS = /^(?:[ \t]*>)*/;

/** Markdown for markdown_text and markdown blocks: spoofing links unmasked, then escaped. */
export function escapeMarkdownText(text: string): string {
  const unmasked = unmaskSpoofedLinks(text);
  const amp = unmasked.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return amp
    .split('\n')
    .map((line) => {
      const quote = QUOTE_MARKERS.exec(line)?.[0] ?? '';
      return quote + line.slice(quote.length).replace(/>/g, '&gt;');
    })
    .join('\n');
}

/**
 * Cuts escaped text to at most `max` characters with "…" at the end, never inside an entity.
 * A guard: the renderer's limit is on the text before escaping, which may grow it.
 */
export function fitEscaped(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const amp = text.lastIndexOf('&', cut);
  // An entity is at most "&amp;" long: an & within four characters before the cut may be one.
  if (amp >= 0 && cut - amp < 5 && text.indexOf(';', amp) >= cut) cut = amp;
  return `${text.slice(0, cut)}…`;
}

/** An answer's text as markdown_text (escaped, within Slack's 12,000 characters). */
export function slackMarkdown(text: string): string {
  return fitEscaped(escapeMarkdownText(text), CHAT.markdownText);
}
