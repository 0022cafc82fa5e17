// Turns the citations of an answer (parseCitations, src/service/citations.ts) into the numbered
// sources shown under it: a title and, where one can be found, a link. Link order: the cite
// entry itself, then the record of a data source created through the bridge (state), then
// reference_source_link / url in the data source's meta (as the entry carries it), then a
// file_name that is itself a URL.
import type { Citation } from '../service/citations.js';
import type { CiteEntry } from '../service/types.js';
import type { SourceRegistry } from '../state/types.js';
import type { Source } from './types.js';

const URL_LIKE = /^https?:\/\/\S+$/i;

function urlField(object: unknown, ...keys: string[]): string | undefined {
  if (typeof object !== 'object' || object === null) return undefined;
  for (const key of keys) {
    const value = (object as Record<string, unknown>)[key];
    if (typeof value === 'string' && URL_LIKE.test(value.trim())) return value.trim();
  }
  return undefined;
}

/** The data source meta an entry may carry, as an object or as JSON text. */
function entryMeta(entry: CiteEntry | undefined): unknown {
  if (!entry) return undefined;
  if (typeof entry.meta === 'object' && entry.meta !== null) return entry.meta;
  if (typeof entry.meta_json === 'string') {
    try {
      return JSON.parse(entry.meta_json) as unknown;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** cite_data keyed by bare marker ("3.4"), whatever brackets or spaces the keys carried. */
function byMarker(citeData: Record<string, CiteEntry>): Map<string, CiteEntry> {
  const map = new Map<string, CiteEntry>();
  for (const [key, entry] of Object.entries(citeData)) {
    map.set(
      key
        .trim()
        .replace(/^\[(.*)\]$/, '$1')
        .trim(),
      entry,
    );
  }
  return map;
}

export async function resolveSources(
  citations: Citation[],
  citeData: Record<string, CiteEntry>,
  registry: SourceRegistry,
  onLookupError: (error: unknown) => void = () => {},
): Promise<Source[]> {
  const entries = byMarker(citeData);
  return Promise.all(
    citations.map(async (citation) => {
      const entry = entries.get(citation.marker);
      const uuid = citation.dataSourceUuid ?? '';
      const record = uuid
        ? await registry.get(uuid).catch((error: unknown) => {
            onLookupError(error);
            return undefined;
          })
        : undefined;
      const link =
        urlField(entry, 'link', 'url', 'source_link', 'reference_source_link') ??
        (record?.link && URL_LIKE.test(record.link) ? record.link : undefined) ??
        urlField(entryMeta(entry), 'reference_source_link', 'url') ??
        urlField(entry, 'file_name') ??
        citation.link;
      const title =
        entry?.title?.trim() || record?.title || citation.fileName || `Source ${citation.number}`;
      const source: Source = { number: citation.number, title, dataSourceUuid: uuid };
      if (link) source.link = link;
      if (citation.fileName) source.fileName = citation.fileName;
      return source;
    }),
  );
}
