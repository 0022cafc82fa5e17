// Code fences (``` or ~~~ blocks) found in markdown text, so splitting and live rendering can
// tell whether a position is inside code and how to close and re-open the block there.

export interface FenceRegion {
  /** Index of the opener line's first character. */
  start: number;
  /** Index where the code starts (just after the opener's newline; text.length if none yet). */
  contentStart: number;
  /** Index of the closing line's first character; undefined while the block is still open. */
  closeStart?: number;
  /** The opener line without its newline, e.g. "```ts" (re-opens the block in a continuation). */
  opener: string;
  /** What closes the block, e.g. "```". */
  closer: string;
}

const OPENER = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const CLOSER = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** Every fenced block of the text, in order; the last may be unclosed. */
export function scanFences(text: string): FenceRegion[] {
  const regions: FenceRegion[] = [];
  let open: FenceRegion | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    if (open === undefined) {
      const match = OPENER.exec(line);
      // A backtick fence's info string may not hold a backtick (CommonMark).
      if (match && !(match[1]!.startsWith('`') && match[2]!.includes('`'))) {
        const fence = match[1]!;
        open = {
          start: lineStart,
          contentStart: newline === -1 ? text.length : newline + 1,
          opener: line.trimStart(),
          closer: fence,
        };
        regions.push(open);
      }
    } else {
      const match = CLOSER.exec(line);
      const fence = match?.[1];
      if (fence && fence[0] === open.closer[0] && fence.length >= open.closer.length) {
        open.closeStart = lineStart;
        open = undefined;
      }
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  return regions;
}

/**
 * The block a cut at `pos` would fall inside (code on both sides, or the closer still to come),
 * or undefined when the cut is in prose.
 */
export function regionAt(regions: FenceRegion[], pos: number): FenceRegion | undefined {
  for (const region of regions) {
    if (region.start >= pos) return undefined;
    if (pos >= region.contentStart && (region.closeStart === undefined || pos <= region.closeStart))
      return region;
    if (pos > region.start && pos < region.contentStart) return region;
  }
  return undefined;
}
