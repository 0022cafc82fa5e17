// Citation keys shared by the extractive writer and the language model: "<source>.<chunk>",
// where <source> numbers the distinct sources in the order they were retrieved (1-based) and
// <chunk> is the passage's position within its source (1-based), e.g. [2.4].
import type { CiteEntry } from '../../service/types.js';
import type { Passage } from './types.js';

export interface CitedPassage {
  key: string;
  passage: Passage;
  entry: CiteEntry;
}

export function citePassages(passages: Passage[]): CitedPassage[] {
  const ordinals = new Map<string, number>();
  const seen = new Set<string>();
  const cited: CitedPassage[] = [];
  for (const passage of passages) {
    if (!ordinals.has(passage.sourceUuid)) ordinals.set(passage.sourceUuid, ordinals.size + 1);
    const key = `${ordinals.get(passage.sourceUuid)}.${passage.chunkIndex + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry: CiteEntry = {
      data_source_uuid: passage.sourceUuid,
      title: passage.title,
      text: passage.text,
      file_name: passage.fileName,
      type: passage.type,
      ...(passage.link === undefined ? {} : { link: passage.link }),
    };
    cited.push({ key, passage, entry });
  }
  return cited;
}

/** The entries of citeData whose [key] marker appears in text. */
export function citedIn(
  text: string,
  citeData: Record<string, CiteEntry>,
): Record<string, CiteEntry> {
  const used: Record<string, CiteEntry> = {};
  for (const match of text.matchAll(/\[(\d+\.\d+)\]/g)) {
    const key = match[1]!;
    const entry = citeData[key];
    if (entry !== undefined) used[key] = entry;
  }
  return used;
}
