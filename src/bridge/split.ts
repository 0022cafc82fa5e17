// Splits a long answer into messages that each fit a size, at the most natural boundary:
// a paragraph break, then a sentence end, then a line break (inside code too), then a space,
// and only then anywhere. A code block cut in two is closed at the end of one message and
// re-opened with its language at the start of the next. Nothing is dropped: the bodies of the
// parts, joined, are exactly the text.
import { regionAt, scanFences, type FenceRegion } from './fences.js';

export interface Part {
  /** Re-opens a code block cut by the previous part ("```ts\n"), else "". */
  prefix: string;
  /** This part's slice of the text. */
  body: string;
  /** Closes a code block cut at the end of this part ("```" or "\n```"), else "". */
  suffix: string;
  /** prefix + body + suffix: what the message shows. */
  text: string;
  /** Where the body starts and ends in the text. */
  start: number;
  end: number;
}

export interface SplitOptions {
  /** Where to start in the text (earlier text was already placed). Default 0. */
  from?: number;
  /** Room to leave in the last part (for a notice the adapter appends). Default 0. */
  lastReserve?: number;
}

// Below this much room a fence cannot be closed and re-opened usefully: cut as plain text.
const MIN_FENCED_ROOM = 16;

/** Splits text into parts of at most `budget` characters each (prefix and suffix included). */
export function splitText(text: string, budget: number, options: SplitOptions = {}): Part[] {
  const regions = scanFences(text);
  const reserve = Math.max(0, Math.min(options.lastReserve ?? 0, Math.floor(budget / 2)));
  const parts: Part[] = [];
  let pos = options.from ?? 0;
  for (;;) {
    const prefix = reopenPrefix(regions, pos, budget);
    const remaining = text.length - pos;
    if (prefix.length + remaining <= budget - reserve) {
      if (remaining > 0 || parts.length === 0)
        parts.push(makePart(prefix, text, pos, text.length, ''));
      return parts;
    }
    const room = (prefix.length + remaining <= budget ? budget - reserve : budget) - prefix.length;
    const end = nextCut(text, regions, pos, room);
    parts.push(makePart(prefix, text, pos, end, closeSuffix(text, regions, end, room)));
    pos = end;
  }
}

/** The prefix that re-opens a code block when a part starts inside one. */
export function reopenPrefix(regions: FenceRegion[], pos: number, budget: number): string {
  const region = regionAt(regions, pos);
  if (!region || pos < region.contentStart) return '';
  const prefix = `${region.opener}\n`;
  return budget - prefix.length >= MIN_FENCED_ROOM ? prefix : '';
}

/** What closes a code block cut at `end` ("" when the cut is in prose). */
export function closeSuffix(
  text: string,
  regions: FenceRegion[],
  end: number,
  room = Infinity,
): string {
  const region = regionAt(regions, end);
  if (!region || end < region.contentStart) return '';
  if (room < MIN_FENCED_ROOM) return '';
  return text[end - 1] === '\n' ? region.closer : `\n${region.closer}`;
}

function makePart(prefix: string, text: string, start: number, end: number, suffix: string): Part {
  const body = text.slice(start, end);
  return { prefix, body, suffix, text: prefix + body + suffix, start, end };
}

/**
 * Where to end a part that starts at `start` and may use `room` characters (its re-open prefix
 * already taken off). Always > start.
 */
export function nextCut(text: string, regions: FenceRegion[], start: number, room: number): number {
  const windowEnd = Math.min(text.length, start + Math.max(1, room));
  const fits = (cut: number) => cut - start + closeSuffix(text, regions, cut, room).length <= room;
  const inCode = (cut: number) => closeSuffix(text, regions, cut, room) !== '';
  const half = start + Math.floor(room / 2);

  const rules: Array<[RegExp, boolean, number]> = [
    [/\n[ \t]*\n/g, false, half], // paragraph break, prose only
    [/[.!?][)"'*_]*[ \t\n]/g, false, half], // sentence end, prose only
    [/\n/g, true, half], // line break, code too
    [/[ \t]/g, true, half], // word break
    [/\n/g, true, start + 1],
    [/[ \t]/g, true, start + 1],
  ];
  for (const [pattern, allowCode, min] of rules) {
    const cut = lastMatchEnd(text, pattern, Math.max(min, start + 1), windowEnd, (c) => {
      if (!fits(c)) return false;
      if (inCode(c) && !allowCode) return false;
      return !awkwardCut(regions, c);
    });
    if (cut !== undefined) return cut;
  }
  return hardCut(text, regions, start, windowEnd, fits);
}

/** The largest match end in [min, max] accepted by `ok`. */
function lastMatchEnd(
  text: string,
  pattern: RegExp,
  min: number,
  max: number,
  ok: (cut: number) => boolean,
): number | undefined {
  const from = Math.max(0, min - 4);
  const slice = text.slice(from, max);
  let best: number | undefined;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(slice); m !== null; m = pattern.exec(slice)) {
    const cut = from + m.index + m[0].length;
    if (cut >= min && cut <= max && ok(cut)) best = cut;
  }
  return best;
}

/** Cuts that would leave an empty code block behind: in or right after an opener, at a closer. */
function awkwardCut(regions: FenceRegion[], cut: number): boolean {
  return regions.some((r) => (cut > r.start && cut <= r.contentStart) || cut === r.closeStart);
}

function hardCut(
  text: string,
  regions: FenceRegion[],
  start: number,
  windowEnd: number,
  fits: (cut: number) => boolean,
): number {
  let cut = windowEnd;
  while (cut > start + 1 && !fits(cut)) cut -= 1;
  const opener = regions.find((r) => cut > r.start && cut < r.contentStart);
  if (opener && opener.start > start) cut = opener.start;
  // Never separate the two halves of a surrogate pair (an emoji, say).
  const code = text.charCodeAt(cut - 1);
  if (cut > start + 1 && code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return cut;
}
