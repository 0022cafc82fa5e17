// Masked links in answer text ("[label](url)") that could spoof: a label that reads as a URL or
// host other than the one the link goes to ("[trusted.example](http://evil.example)"). Answers
// come from whatever the chatbot ingested, so such a link is unmasked: the label stays as text
// and the real address follows it. Links labelled with words ("the refund policy") stay links.
// marked finds the links (never inside code) so no markdown is parsed by hand here.
import { Marked, type Tokens } from 'marked';

// An instance of its own: options set on the global marked elsewhere do not change what is found.
const markdown = new Marked({ gfm: true });

/** How the real address is shown after the label: Discord wraps it in <…> (no preview card). */
export type UnmaskStyle = (label: string, href: string) => string;

export const plainUnmask: UnmaskStyle = (label, href) => `${label} (${href})`;

// A label that reads as an address: an optional scheme, a dotted host ending in a word of two or
// more letters (so "v1.2" or "3.14" are not hosts), then an optional port and path.
const HOST_LIKE =
  /^(?:[a-z][a-z0-9+.-]*:\/\/)?((?:[\p{L}\p{N}-]+\.)+[\p{L}-]{2,}\.?)(?::\d+)?(?:[/?#]\S*)?$/iu;

/** The host a label names, or undefined when it does not read as an address. */
export function labelHost(label: string): string | undefined {
  const plain = label.replace(/[*_~`\\]/g, '').trim();
  const match = HOST_LIKE.exec(plain);
  if (!match) return undefined;
  return hostOf(`http://${match[1]!}`);
}

/** The normalized host (lower case, IDN as punycode, no "www.") of a URL, if it has one. */
function hostOf(url: string): string | undefined {
  try {
    const host = new URL(url).hostname.replace(/\.$/, '');
    return host === '' ? undefined : host.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

/** Whether a link labelled `label` that goes to `href` would show one host and open another. */
export function isSpoofing(label: string, href: string): boolean {
  const shown = labelHost(label);
  if (shown === undefined) return false;
  return hostOf(href) !== shown;
}

/**
 * The text with every spoofing masked link (and image) unmasked. Links that are already plain
 * (autolinks, bare URLs) and links labelled with words are left as written.
 */
export function unmaskSpoofedLinks(text: string, style: UnmaskStyle = plainUnmask): string {
  if (!text.includes('](') && !text.includes('][')) return text;
  // Tokens come in the order they are written; each link and each piece of code is found in the
  // text from where the last one ended, so the same characters inside code are never touched.
  let out = '';
  let cursor = 0;
  // walkTokens returns the callbacks' results; ours are synchronous.
  void markdown.walkTokens(markdown.lexer(text), (token) => {
    const isCode = token.type === 'code' || token.type === 'codespan';
    const isLink = token.type === 'link' || token.type === 'image';
    if (!isCode && !isLink) return;
    const at = text.indexOf(token.raw, cursor);
    if (at < 0 || (isLink && at < cursor)) return;
    const end = at + token.raw.length;
    const link = token as Tokens.Link | Tokens.Image;
    const spoofing = isLink && /^!?\[/.test(link.raw) && isSpoofing(link.text, link.href);
    out += text.slice(cursor, at) + (spoofing ? style(link.text, link.href) : token.raw);
    cursor = end;
  });
  return out + text.slice(cursor);
}
