// Citations of a stored message: the answer text carries markers such as [3.4] that are keys of
// cite_data. parseCitations numbers the cited data sources in order of first use ([1], [2], …;
// two passages of one source share its number, so a reader sees each source once), removes
// markers that have no entry, and leaves ordinary bracketed text ([1], [note], [x](y)) alone.
import type { CiteEntry, Message } from './types.js';

/** One cited data source, under the first marker that cited it. */
export interface Citation {
  /** Footnote number, from 1, in order of first use in the text; one per data source. */
  number: number;
  /** The first cite_data key that cited it, e.g. "3.4". */
  marker: string;
  /** Every cite_data key that cited it, in order of first use. */
  markers: string[];
  /** The passage each of those markers cited (same order as markers). */
  passages: string[];
  dataSourceUuid: string;
  title: string;
  /** The cited passage. */
  passage: string;
  fileName: string;
  link?: string;
}

export interface SourceInfo {
  link?: string;
  title?: string;
}

export interface CitationOptions {
  /** Looks up a cited data source (e.g. from its meta_json reference_source_link). */
  sources?: (dataSourceUuid: string) => SourceInfo | undefined;
}

export interface ParsedCitations {
  /** The answer with known markers as [n] and unknown markers removed. */
  text: string;
  citations: Citation[];
}

/** The shape of a service marker: [3.4], tolerating [3.4.1]. */
const MARKER_SHAPE = /^\d+(?:\.\d+){1,2}$/;
/** A bracketed group on one line, not the text of a markdown link [x](y). */
const BRACKETED = /\[([^[\]\n]{1,64})\](?!\()/g;

const isHttpUrl = (value: unknown): value is string =>
  typeof value === 'string' && /^https?:\/\/\S+$/i.test(value.trim());

const keyOf = (marker: string) =>
  marker
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .trim();

function linkOf(entry: CiteEntry, source: SourceInfo | undefined): string | undefined {
  const meta = entry.meta as Record<string, unknown> | undefined;
  const candidates = [
    entry.link,
    entry.url,
    entry.reference_source_link,
    meta?.reference_source_link,
    meta?.url,
    source?.link,
    entry.file_name,
  ];
  const found = candidates.find(isHttpUrl);
  return found?.trim();
}

/** Accepts a Message (uses response and cite_data) or the two parts. */
export function parseCitations(
  message: Pick<Message, 'response' | 'cite_data'>,
  options: CitationOptions = {},
): ParsedCitations {
  const entries = new Map<string, CiteEntry>();
  for (const [key, entry] of Object.entries(message.cite_data ?? {}))
    entries.set(keyOf(key), entry);

  const citations: Citation[] = [];
  // Keyed by data source (or by marker for an entry that names none).
  const bySource = new Map<string, Citation>();
  const text = message.response.replace(BRACKETED, (whole, inner: string) => {
    const key = inner.trim();
    const entry = entries.get(key);
    if (entry) {
      const sourceKey = entry.data_source_uuid || `marker:${key}`;
      const cited = bySource.get(sourceKey);
      if (cited) {
        if (!cited.markers.includes(key)) {
          cited.markers.push(key);
          cited.passages.push(entry.text);
        }
        return `[${cited.number}]`;
      }
      {
        const number = citations.length + 1;
        const source = options.sources?.(entry.data_source_uuid);
        const link = linkOf(entry, source);
        const citation: Citation = {
          number,
          marker: key,
          markers: [key],
          passages: [entry.text],
          dataSourceUuid: entry.data_source_uuid,
          title: entry.title || source?.title || entry.file_name,
          passage: entry.text,
          fileName: entry.file_name,
          ...(link === undefined ? {} : { link }),
        };
        citations.push(citation);
        bySource.set(sourceKey, citation);
        return `[${number}]`;
      }
    }
    if (MARKER_SHAPE.test(key)) return REMOVED;
    return whole;
  });
  return { text: collapseRemoved(text), citations };
}

// Removed markers leave this placeholder so the spacing around them is fixed in one pass.
const REMOVED = '\uE000';

/**
 * "word [9.9]." → "word."; "word [9.9] next" → "word next"; "[9.9] Start" → "Start".
 * Only horizontal spaces next to a removed marker are touched.
 */
function collapseRemoved(text: string): string {
  if (!text.includes(REMOVED)) return text;
  return (
    text
      // Spaces before a run of removed markers go when what follows is space, punctuation or end.
      .replace(/[ \t]+\uE000+(?=[ \t\n.,;:!?)]|$)/g, '')
      // At the start of a line, the space after the marker goes with it.
      .replace(/(^|\n)\uE000+[ \t]+/g, '$1')
      .replace(/\uE000/g, '')
  );
}

/**
 * Live footnote numbers for text that is still streaming, before cite_data is known. Markers of
 * the service's shape ([3.4]) become [n] in order of first appearance, stable across calls,
 * grouped by their first number (the source, in the service's "source.passage" keys) so the live
 * numbers match the final per-source ones where that convention holds;
 * an incomplete marker at the very end ("[3." ) is held back until the next piece completes it.
 * The final numbering comes from parseCitations on the stored message (which also drops
 * markers without an entry, so the two can differ when such markers occur).
 */
export interface MarkerNumberer {
  /** The whole text so far, rendered. */
  render(text: string): string;
  /** The number given to a marker, if it has appeared. */
  numberOf(marker: string): number | undefined;
}

const TRAILING_PARTIAL = /\[[\d.]{0,12}$/;

export function createMarkerNumberer(): MarkerNumberer {
  const numbers = new Map<string, number>();
  const groupOf = (key: string) => key.slice(0, key.indexOf('.'));
  const numberOf = (marker: string) => numbers.get(groupOf(keyOf(marker)));
  return {
    numberOf,
    render(text) {
      const complete = text.replace(TRAILING_PARTIAL, '');
      return complete.replace(BRACKETED, (whole, inner: string) => {
        const key = inner.trim();
        if (!MARKER_SHAPE.test(key)) return whole;
        let number = numbers.get(groupOf(key));
        if (number === undefined) {
          number = numbers.size + 1;
          numbers.set(groupOf(key), number);
        }
        return `[${number}]`;
      });
    },
  };
}
