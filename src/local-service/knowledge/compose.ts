// The extractive answer writer: without a language model, the answer is made of the
// sentences of the retrieved passages that best match the question, each group introduced
// by the source it comes from. It never invents text; when the passages do not cover the
// question well enough it says so.
import type { CiteEntry } from '../../service/types.js';
import { citePassages, type CitedPassage } from './cite.js';
import { splitSentences } from './sentences.js';
import { termsOf } from './terms.js';
import type { ComposedAnswer, Passage } from './types.js';

export const NOT_FOUND_ANSWER = 'I could not find that in my sources.';

export interface ComposeOptions {
  citations: boolean;
  /** Earlier turns, oldest first; the last queries lend their terms to a follow-up. */
  history?: { query: string; response: string }[];
}

/** Passages read (best first), sentences written, share of the question the passages must cover. */
const MAX_PASSAGES = 4;
const MAX_SENTENCES = 3;
const MAX_SOURCES = 3;
const MIN_COVERAGE = 0.5;
const CONTEXT_WEIGHT = 0.35;
const PREFIX_WEIGHT = 0.7;
/** A term a chosen sentence already said counts this much in the next one. */
const REPEAT_WEIGHT = 0.3;
/** A further sentence must add at least this share of what the first one brought. */
const MIN_GAIN = 0.35;
/** What a heading lends the sentence after it (a question lends all). */
const HEADING_CARRY = 0.5;

interface Candidate {
  cited: CitedPassage;
  rank: number;
  position: number;
  text: string;
  /** Query term index → how well this sentence (with its lead-in) matches it, 0..1. */
  matched: Map<number, number>;
  contextScore: number;
}

function matches(term: string, terms: Set<string>): number {
  if (terms.has(term)) return 1;
  if (term.length < 4) return 0;
  for (const other of terms) {
    if (other.length >= 4 && (other.startsWith(term) || term.startsWith(other)))
      return PREFIX_WEIGHT;
  }
  return 0;
}

function isQuestion(sentence: string): boolean {
  return /\?["'”’)]*$/.test(sentence);
}

/** A line that introduces rather than states: a question, or a short heading. */
function isLeadIn(sentence: string): boolean {
  if (isQuestion(sentence) || /^#{1,6}\s/.test(sentence)) return true;
  if (/^(?:[-*•+]|\d{1,3}[.)])\s/.test(sentence) || sentence.includes(':')) return false;
  return !/[.!;…]["'”’)\]]*$/.test(sentence) && sentence.split(/\s+/).length < 8;
}

function readable(sentence: string): string {
  const bare = sentence
    .replace(/^(?:#{1,6}\s+|[-*•+]\s+|\d{1,3}[.)]\s+|(?:answer|a)\s*:\s*)/i, '')
    .trim();
  return /[.!?…]["'”’)\]]*$/.test(bare) ? bare : `${bare}.`;
}

/** Sentences of the passages with what they match; a lead-in lends its matches to the next. */
function candidatesOf(
  cited: CitedPassage[],
  queryTerms: string[],
  contextTerms: string[],
  idf: (t: string) => number,
): Candidate[] {
  const candidates: Candidate[] = [];
  cited.forEach((c, rank) => {
    let lent: { candidate: Candidate; share: number } | undefined;
    splitSentences(c.passage.text).forEach((text, position) => {
      const terms = new Set(termsOf(text));
      const matched = new Map<number, number>();
      queryTerms.forEach((term, i) => {
        const strength = matches(term, terms);
        if (strength > 0) matched.set(i, strength);
      });
      let contextScore = 0;
      for (const term of contextTerms)
        contextScore += CONTEXT_WEIGHT * matches(term, terms) * idf(term);
      const candidate: Candidate = { cited: c, rank, position, text, matched, contextScore };
      if (lent !== undefined) {
        for (const [i, strength] of lent.candidate.matched) {
          matched.set(i, Math.max(matched.get(i) ?? 0, strength * lent.share));
        }
        candidate.contextScore += lent.candidate.contextScore * lent.share;
        lent = undefined;
      }
      if (isLeadIn(text)) lent = { candidate, share: isQuestion(text) ? 1 : HEADING_CARRY };
      else candidates.push(candidate);
    });
    if (lent !== undefined) candidates.push(lent.candidate); // a lead-in with nothing after it
  });
  return candidates;
}

export function composeAnswer(
  query: string,
  passages: Passage[],
  options: ComposeOptions,
): ComposedAnswer {
  const notFound: ComposedAnswer = { text: NOT_FOUND_ANSWER, citeData: {} };
  const queryTerms = [...new Set(termsOf(query))];
  const earlier = (options.history ?? [])
    .slice(-2)
    .map((turn) => turn.query)
    .join('\n');
  const contextTerms = [...new Set(termsOf(earlier))].filter((t) => !queryTerms.includes(t));
  if (queryTerms.length === 0 && contextTerms.length === 0) return notFound;

  const cited = citePassages(passages).slice(0, MAX_PASSAGES);
  const passageTerms = cited.map((c) => new Set(termsOf(`${c.passage.title}\n${c.passage.text}`)));
  // Honesty: together, the passages must hold at least half of what was asked.
  if (queryTerms.length > 0) {
    const found = queryTerms.reduce(
      (sum, term) => sum + Math.max(0, ...passageTerms.map((terms) => matches(term, terms))),
      0,
    );
    if (found / queryTerms.length < MIN_COVERAGE) return notFound;
  }
  // Rarer terms among the passages weigh more.
  const idf = (term: string) => {
    const df = passageTerms.filter((terms) => matches(term, terms) > 0).length;
    return Math.log(1 + (cited.length + 1) / Math.max(df, 0.5));
  };
  const queryIdf = queryTerms.map(idf);
  const candidates = candidatesOf(cited, queryTerms, contextTerms, idf);

  // Greedy: each next sentence is the one that adds the most not yet said.
  const chosen: Candidate[] = [];
  const covered = new Set<number>();
  const sources = new Set<string>();
  let first = 0;
  while (chosen.length < MAX_SENTENCES) {
    let best: Candidate | undefined;
    let bestGain = 0;
    for (const candidate of candidates) {
      if (chosen.includes(candidate)) continue;
      const source = candidate.cited.passage.sourceUuid;
      if (!sources.has(source) && sources.size >= MAX_SOURCES) continue;
      if (chosen.some((c) => readable(c.text) === readable(candidate.text))) continue;
      let gain = candidate.contextScore + 0.01 * (MAX_PASSAGES - candidate.rank);
      for (const [i, strength] of candidate.matched)
        gain += strength * queryIdf[i]! * (covered.has(i) ? REPEAT_WEIGHT : 1);
      if (gain > bestGain) [best, bestGain] = [candidate, gain];
    }
    if (best === undefined || (chosen.length > 0 && bestGain < first * MIN_GAIN)) break;
    if (chosen.length === 0) {
      if (best.matched.size === 0 && queryTerms.length > 0) break; // matches context only
      first = bestGain;
    }
    chosen.push(best);
    sources.add(best.cited.passage.sourceUuid);
    for (const i of best.matched.keys()) covered.add(i);
  }
  return chosen.length === 0 ? notFound : write(chosen, options.citations);
}

/** Groups the chosen sentences by source (best source first) and writes them out. */
function write(chosen: Candidate[], citations: boolean): ComposedAnswer {
  const groups = new Map<string, Candidate[]>();
  for (const candidate of chosen) {
    const source = candidate.cited.passage.sourceUuid;
    groups.set(source, [...(groups.get(source) ?? []), candidate]);
  }
  const citeData: Record<string, CiteEntry> = {};
  const paragraphs: string[] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => a.rank - b.rank || a.position - b.position);
    const { passage } = group[0]!.cited;
    const name = passage.title.trim() || passage.fileName.trim() || 'one of my sources';
    const sentences = group.map((candidate, i) => {
      const next = group[i + 1];
      const text = readable(candidate.text);
      if (!citations || next?.cited === candidate.cited) return text;
      citeData[candidate.cited.key] = candidate.cited.entry;
      return `${text} [${candidate.cited.key}]`;
    });
    paragraphs.push(`According to ${name}: ${sentences.join(' ')}`);
  }
  return { text: paragraphs.join('\n\n'), citeData };
}

/**
 * Cuts a text into pieces of a few words for streaming; whitespace stays exactly where it
 * was, so pieces.join('') === text.
 */
export function splitIntoPieces(text: string, wordsPerPiece = 3): string[] {
  const pieces: string[] = [];
  let current = '';
  let words = 0;
  for (const token of text.match(/\s+|\S+/g) ?? []) {
    if (/\S/.test(token) && words === wordsPerPiece) {
      pieces.push(current);
      current = '';
      words = 0;
    }
    current += token;
    if (/\S/.test(token)) words++;
  }
  if (current !== '') pieces.push(current);
  return pieces;
}
