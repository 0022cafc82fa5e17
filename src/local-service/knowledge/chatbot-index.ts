// One chatbot's search index: its chunks (with the source and section each comes from) over a
// BM25 index of their terms (bm25.ts). Built and kept by search-index.ts.
import { Bm25Index, type IndexedDocument } from './bm25.js';
import { headingOf, rawParagraphs } from './markdown.js';
import { contextWeight, termsOf } from './terms.js';
import type { Passage, SearchOptions, SourceText } from './types.js';

/** A source as persisted: its metadata and its chunks. */
export interface StoredSource extends Omit<SourceText, 'text'> {
  chunks: string[];
}

type SourceMeta = Omit<StoredSource, 'chunks'>;

interface ChunkRef {
  source: SourceMeta;
  index: number;
  text: string;
  /** The heading over a chunk that starts inside a section (its words are indexed with it). */
  section?: string;
  headings: string[];
}

/** For each chunk: the nearest heading above it when it does not start with one; its headings. */
function sectionsOf(chunks: string[]): { section?: string; headings: string[] }[] {
  let current: string | undefined;
  return chunks.map((text) => {
    // A Markdown heading needs a '#': most chunks have none, and need no parsing.
    if (!text.includes('#')) return { ...(current && { section: current }), headings: [] };
    const paragraphs = rawParagraphs(text);
    const starts = headingOf(paragraphs[0] ?? '') !== undefined;
    const section = starts ? undefined : current;
    const headings: string[] = [];
    for (const paragraph of paragraphs) {
      const heading = headingOf(paragraph);
      if (heading !== undefined) headings.push((current = heading));
    }
    return { ...(section && { section }), headings };
  });
}

/**
 * What a chunk's terms are read from: the heading it sits under, its headings (their words
 * count once more: a heading says what the section is about), then its own text.
 */
const chunkTexts = (ref: ChunkRef): string[] => [
  ...(ref.section === undefined ? [] : [ref.section]),
  ...ref.headings,
  ref.text,
];

const chunkTerms = (ref: ChunkRef): string[] => chunkTexts(ref).flatMap(termsOf);

/** At most this many terms of earlier turns widen a search (see contextWeight). */
const MAX_CONTEXT_TERMS = 12;

export class ChatbotIndex {
  private readonly bm25 = new Bm25Index();
  /** Chunk by document id. */
  private readonly refs: (ChunkRef | undefined)[] = [];
  private readonly idsBySource = new Map<string, number[]>();

  /** Chunks indexed. */
  get size(): number {
    return this.bm25.size;
  }

  /** Indexes the sources of an empty index at once (see Bm25Index.addDocuments). */
  load(records: StoredSource[]): void {
    const distinct = new Set(records.map((record) => record.uuid)).size === records.length;
    if (this.size > 0 || !distinct) {
      for (const record of records) this.addSource(record);
      return;
    }
    const refs: ChunkRef[] = [];
    const documents: IndexedDocument[] = [];
    for (const { chunks, ...meta } of records) {
      const titleTerms = termsOf(meta.title);
      const sections = sectionsOf(chunks);
      chunks.forEach((text, index) => {
        const ref: ChunkRef = { source: meta, index, text, headings: [], ...sections[index] };
        refs.push(ref);
        documents.push({ texts: chunkTexts(ref), titleTerms });
      });
    }
    const ids = this.bm25.addDocuments(documents);
    ids.forEach((id, at) => {
      const ref = refs[at]!;
      this.refs[id] = ref;
      const ofSource = this.idsBySource.get(ref.source.uuid);
      if (ofSource === undefined) this.idsBySource.set(ref.source.uuid, [id]);
      else ofSource.push(id);
    });
  }

  addSource(stored: StoredSource): void {
    this.removeSource(stored.uuid);
    const { chunks, ...meta } = stored;
    const titleTerms = termsOf(meta.title);
    const sections = sectionsOf(chunks);
    const ids = chunks.map((text, index) => {
      const ref: ChunkRef = { source: meta, index, text, headings: [], ...sections[index] };
      const id = this.bm25.addDocument(chunkTexts(ref), titleTerms);
      this.refs[id] = ref;
      return id;
    });
    this.idsBySource.set(stored.uuid, ids);
  }

  removeSource(uuid: string): void {
    for (const id of this.idsBySource.get(uuid) ?? []) {
      const ref = this.refs[id];
      if (ref === undefined) continue;
      this.bm25.remove(id, chunkTerms(ref), termsOf(ref.source.title));
      this.refs[id] = undefined;
    }
    this.idsBySource.delete(uuid);
  }

  rename(uuid: string, title: string): void {
    const ids = this.idsBySource.get(uuid) ?? [];
    const first = ids[0] === undefined ? undefined : this.refs[ids[0]];
    if (first === undefined) return;
    const chunks = ids.map((id) => this.refs[id]?.text ?? '');
    this.addSource({ ...first.source, title, chunks });
  }

  search(query: string, options: SearchOptions): Passage[] {
    const queryTerms = [...new Set(termsOf(query))];
    const contextTerms = [...new Set(termsOf(options.context ?? ''))]
      .filter((term) => !queryTerms.includes(term))
      .slice(0, MAX_CONTEXT_TERMS);
    const terms = [
      ...queryTerms.map((term) => ({ term, weight: 1 })),
      ...contextTerms.map((term) => ({ term, weight: contextWeight(query) })),
    ];
    if (terms.length === 0) return [];
    const allowed = options.sourceUuids === undefined ? undefined : new Set(options.sourceUuids);
    if (allowed?.size === 0) return [];
    const accept = allowed && ((id: number) => allowed.has(this.refs[id]?.source.uuid ?? ''));
    const passages: Passage[] = [];
    for (const hit of this.bm25.search(terms, options.limit ?? 5, accept)) {
      const ref = this.refs[hit.doc];
      if (ref === undefined) continue;
      const { source } = ref;
      passages.push({
        sourceUuid: source.uuid,
        title: source.title,
        fileName: source.fileName,
        type: source.type,
        ...(source.link === undefined ? {} : { link: source.link }),
        chunkIndex: ref.index,
        text: ref.text,
        ...(ref.section === undefined ? {} : { section: ref.section }),
        score: hit.score,
      });
    }
    return passages;
  }
}
