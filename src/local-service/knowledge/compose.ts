// The extractive answer writer: without a language model, the answer is the passage that best
// answers (window.ts: opened by the sentence, list item, row or heading that leads it, read on
// to its section's end), chosen by its lead's strength (its words, the question's shape) and
// the question's words it holds, introduced by its source; one more source only when it holds
// what the first lacks. It never invents text; when the passages do not cover the question
// well enough it says so.
import { citePassages } from './cite.js';
import {
  commandTerms,
  definitionSubject,
  isHowTo,
  leadsWithSubject,
  opensSubjectSection,
  titleNames,
} from './compose-shape.js';
import { topicOf } from './follow-up.js';
import { joinedPairs, oneEditAway, sharesStart, termsOf } from './terms.js';
import { type Unit, unitsOf } from './units.js';
import { isContentsLine, joinParts, type Part, WINDOW_WORDS, windowFrom } from './window.js';
import { writeWindowAnswer } from './write.js';
import type { ComposedAnswer, Passage } from './types.js';

export const NOT_FOUND_ANSWER = 'I could not find that in my sources.';

export interface ComposeOptions {
  citations: boolean;
  /** Earlier turns, oldest first; their questions lend their terms to a follow-up only. */
  history?: { query: string; response: string }[];
}

/** Passages read (best first), share of the question the passages must cover. */
const MAX_PASSAGES = 5;
const MIN_COVERAGE = 0.5;
const PREFIX_WEIGHT = 0.7;
/** A unit mostly made of what was asked (a short, focused one) gains up to this share. */
const FOCUS_BONUS = 0.3;
/** A term the unit's section heading names too (the section is about it) adds this share. */
const SECTION_BONUS = 0.5;
/** A table row (or an option's lines of code) reads worse than prose that says as much. */
const ROW_FACTOR = 0.85;
/** What a term of the topic adds to a unit holding it (times its rarity), for a follow-up… */
const TOPIC_WEIGHT = 0.35;
/** …all together at most this share of the commonest question term's: it breaks ties only. */
const TOPIC_CAP = 0.5;
/** How much a topic term found elsewhere in the unit's passage counts, next to in the unit. */
const PASSAGE_TOPIC = 0.5;
/**
 * A unit's gain is scaled between this and 1 by its passage's retrieval score against the best
 * one's: the retriever weighs each term by its rarity in the whole corpus, which the few
 * passages read here cannot tell (a name every document says is no evidence at all).
 */
const RELEVANCE_FLOOR = 0.5;
/** What the question's words held anywhere in a window add to its lead unit's strength. */
const WINDOW_WEIGHT = 0.6;
/** What a how-to window without any code keeps of its score. */
const NO_CODE = 0.7;
/** A document's opening reads on past its headings until it says at least this much. */
const OPENING_MIN_WORDS = 30;
/** A second source must hold this share of what the first does not (by rarity). */
const SUPPORT_SHARE = 0.5;
/** …and score at least this share of the first window's. */
const SUPPORT_SCORE = 0.45;
/** …and say it in a sentence of at least this many words. */
const MIN_SUPPORT_WORDS = 8;
/** A second source's window is short: it supports, the first answers. */
const SUPPORT_WORDS = 50;
/** For "what is X": a sentence with X as its subject, and the first one under a heading of X. */
const SUBJECT_LEAD_BONUS = 0.5;
const SUBJECT_SECTION_BONUS = 2;
/** For "how do I …": a unit introducing the command that does it (see compose-shape.ts). */
const PROCEDURE_BONUS = 0.8;

/** How strongly weighted terms stand for `term`: exactly, or by a shared long prefix. */
function matches(term: string, weights: ReadonlyMap<string, number>): number {
  const exact = weights.get(term);
  if (exact !== undefined) return exact;
  if (term.length < 4) return 0;
  let best = 0;
  for (const [other, weight] of weights) {
    if (sharesStart(term, other)) best = Math.max(best, PREFIX_WEIGHT * weight);
  }
  return best;
}

/** The passages' word a question term stands for: itself when they hold it, else one edit away. */
function spelledAs(term: string, passageTerms: ReadonlyMap<string, number>[]): string {
  if (term.length < 5 || passageTerms.some((terms) => terms.has(term))) return term;
  const spellings = oneEditAway(term);
  for (const terms of passageTerms) {
    const known = spellings.find((spelling) => terms.has(spelling));
    if (known !== undefined) return known;
  }
  return term;
}

/** The question's word pairs that the passages hold written as one word (see joinedPairs). */
function joinedAsPassagesWrite(query: string, passageTerms: ReadonlyMap<string, number>[]) {
  return joinedPairs(query).flatMap(({ words, joined }) => {
    const term = termsOf(joined)[0];
    if (term === undefined || !passageTerms.some((terms) => terms.has(term))) return [];
    return [{ term, parts: words.flatMap((word) => termsOf(word)) }];
  });
}

const allOnes = (terms: Iterable<string>) => new Map([...terms].map((t) => [t, 1]));

interface Scored {
  unit: Unit;
  /** Query term index → strength, 0..1. */
  matched: Map<number, number>;
  base: number;
  /** What introducing the asked command adds, to the first unit only: the rest add words. */
  procedure: number;
}

export function composeAnswer(
  query: string,
  passages: Passage[],
  options: ComposeOptions,
): ComposedAnswer {
  const notFound: ComposedAnswer = { text: NOT_FOUND_ANSWER, citeData: {} };
  const asked = [...new Set(termsOf(query))];
  if (asked.length === 0) return notFound; // a topic alone is not a question
  // A question that stands alone is answered as if asked fresh (see follow-up.ts).
  const topic = topicOf(query, options.history ?? []) ?? '';
  const topicTerms = [...new Set(termsOf(topic))].filter((t) => !asked.includes(t));

  const cited = citePassages(passages).slice(0, MAX_PASSAGES);
  const passageTerms = cited.map((c) =>
    allOnes(termsOf(`${c.passage.title}\n${c.passage.section ?? ''}\n${c.passage.text}`)),
  );
  // A misspelt word ("braodcast") reads as the passages' word one edit away, as the search did,
  // and two words the passages write as one ("back up": backup) as that word.
  const joined = joinedAsPassagesWrite(query, passageTerms);
  const apart = new Set(joined.flatMap((pair) => pair.parts));
  const queryTerms = [
    ...new Set([
      ...joined.map((pair) => pair.term),
      ...asked.filter((term) => !apart.has(term)).map((term) => spelledAs(term, passageTerms)),
    ]),
  ];
  // Honesty: together, the passages must hold at least half of what was asked.
  const found = queryTerms.reduce(
    (sum, term) => sum + Math.max(0, ...passageTerms.map((terms) => matches(term, terms))),
    0,
  );
  if (found / queryTerms.length < MIN_COVERAGE) return notFound;
  // Rarer terms among the passages weigh more.
  const idf = (term: string) => {
    const df = passageTerms.filter((terms) => matches(term, terms) > 0).length;
    return Math.log(1 + (cited.length + 1) / Math.max(df, 0.5));
  };
  const queryIdf = queryTerms.map(idf);
  const topicIdf = topicTerms.map(idf);
  // Less than one more question term said in full brings: the topic never outranks the question.
  const topicCap = TOPIC_CAP * Math.min(...queryIdf);
  const subject = definitionSubject(query);
  const subjectIdf = (subject ?? []).reduce((sum, term) => sum + idf(term), 0);
  const howTo = isHowTo(query);
  const topScore = Math.max(0, ...cited.map((c) => c.passage.score));
  const relevance = (score: number) =>
    topScore > 0 ? RELEVANCE_FLOOR + (1 - RELEVANCE_FLOOR) * Math.max(0, score / topScore) : 1;
  const scored: Scored[] = cited.flatMap((c, rank) =>
    unitsOf(c, rank).map((unit) => {
      const matched = new Map<number, number>();
      let base = 0.01 * (MAX_PASSAGES - rank);
      queryTerms.forEach((term, i) => {
        const strength = matches(term, unit.weights);
        if (strength === 0) return;
        matched.set(i, strength);
        if (unit.section.has(term)) base += SECTION_BONUS * queryIdf[i]!;
      });
      if (subject !== undefined) {
        if (leadsWithSubject(unit.text, subject)) base += SUBJECT_LEAD_BONUS * subjectIdf;
        if (opensSubjectSection(unit, subject)) base += SUBJECT_SECTION_BONUS * subjectIdf;
      }
      const procedure = howTo
        ? PROCEDURE_BONUS * procedureIdf(unit, queryTerms, queryIdf, matched)
        : 0;
      // A unit also speaks of the topic its passage is about, less than of its own words.
      const topicScore = topicTerms.reduce((sum, term, i) => {
        const held = Math.max(
          matches(term, unit.weights),
          PASSAGE_TOPIC * matches(term, passageTerms[rank]!),
        );
        return sum + held * topicIdf[i]!;
      }, 0);
      base += Math.min(TOPIC_WEIGHT * topicScore, topicCap);
      return { unit, matched, base, procedure };
    }),
  );

  // "What is X", asked of a source named X: its opening says what X is (search.ts puts it in),
  // from its first words after the title (a tagline is often a short line of its own).
  const opening =
    subject === undefined
      ? undefined
      : scored.find(
          ({ unit }) =>
            unit.cited.passage.chunkIndex === 0 && titleNames(unit.cited.passage.title, subject),
        );
  if (opening !== undefined) {
    const first = opening.unit.blocks.findIndex(
      (block) => block.kind !== 'heading' && block.kind !== 'code',
    );
    const lead = { ...opening.unit, block: Math.max(0, first), sentence: 0 };
    return writeWindowAnswer(
      [{ lead, parts: windowFrom(lead, WINDOW_WORDS, OPENING_MIN_WORDS) }],
      options.citations,
    );
  }

  // The answer is the window (window.ts) that best answers: its lead unit's own strength
  // (its words, the question's shape) and the question's words the rest of it holds.
  const windows: Window[] = [];
  for (const candidate of scored) {
    const { unit } = candidate;
    if (candidate.matched.size === 0) continue;
    let lead = candidate.base + candidate.procedure;
    for (const [i, strength] of candidate.matched) lead += strength * queryIdf[i]!;
    lead *= 1 + FOCUS_BONUS * Math.min(1, candidate.matched.size / unit.ownTerms);
    if (unit.kind === 'row' || unit.kind === 'entry') lead *= ROW_FACTOR;
    const parts = windowFrom(unit);
    if (parts.every(isContentsLine)) continue; // a table of contents names, it does not answer
    const held = allOnes(termsOf(joinParts(parts)));
    const holds = queryTerms.map((term) => matches(term, held));
    const coverage = holds.reduce((sum, strength, i) => sum + strength * queryIdf[i]!, 0);
    // "How do I …" is answered by the steps: a window without code shows none.
    const steps = howTo && !parts.some((part) => /^(`{3,}|~{3,})/.test(part.text)) ? NO_CODE : 1;
    const score = (lead + WINDOW_WEIGHT * coverage) * relevance(unit.cited.passage.score) * steps;
    windows.push({ unit, parts, holds, score, candidate });
  }
  const best = windows.reduce<Window | undefined>(
    (a, b) => (a && a.score >= b.score ? a : b),
    undefined,
  );
  if (best === undefined) return notFound;
  // Honesty, again: the answer itself must hold half of what was asked (the passages together
  // holding it is not enough: "convert a word docx" is not answered by "edit the wording").
  // (What the lead's heading lends counts: "Class: WebSocketServer" over "It extends …".)
  const held = best.holds.reduce(
    (sum, strength, i) => sum + Math.max(strength, best.candidate.matched.get(i) ?? 0),
    0,
  );
  if (held / queryTerms.length < MIN_COVERAGE) return notFound;
  const second = supportingWindow(best, windows, queryIdf);
  return writeWindowAnswer(
    [best, ...(second ? [second] : [])].map(({ unit, parts }) => ({ lead: unit, parts })),
    options.citations,
  );
}

interface Window {
  unit: Unit;
  parts: Part[];
  /** For each question term, how strongly the window holds it. */
  holds: number[];
  score: number;
  candidate: Scored;
}

/**
 * A window of another source that answers, on its own, the part of the question the best one
 * does not hold: its lead unit says at least one missing word, and it holds most of the
 * missing words' weight. Shorter than the first.
 */
function supportingWindow(best: Window, windows: Window[], queryIdf: number[]): Window | undefined {
  const missing = best.holds.flatMap((strength, i) => (strength === 0 ? [i] : []));
  const missingWeight = missing.reduce((sum, i) => sum + queryIdf[i]!, 0);
  if (missing.length === 0) return undefined;
  const source = best.unit.cited.passage.sourceUuid;
  let found: { window: Window; adds: number } | undefined;
  for (const window of windows) {
    if (window.unit.cited.passage.sourceUuid === source) continue;
    if (window.score < SUPPORT_SCORE * best.score) continue;
    if (!missing.some((i) => window.candidate.matched.has(i))) continue;
    const adds = missing.reduce((sum, i) => sum + window.holds[i]! * queryIdf[i]!, 0);
    if (adds < SUPPORT_SHARE * missingWeight) continue;
    if (
      found === undefined ||
      adds > found.adds ||
      (adds === found.adds && window.score > found.window.score)
    )
      found = { window, adds };
  }
  if (found === undefined) return undefined;
  const parts = windowFrom(found.window.unit, SUPPORT_WORDS);
  // Support is said in sentences: a lone list item or name ("Class: WebSocketServer") is not.
  if (!parts.some((part) => part.prose && part.text.split(/\s+/).length >= MIN_SUPPORT_WORDS))
    return undefined;
  return { ...found.window, parts };
}

/**
 * A question term that the unit's code block runs counts in full, and the unit is a procedure
 * for it: returns the rarity of the rarest such term (0 when the code runs none).
 */
function procedureIdf(
  unit: Unit,
  queryTerms: readonly string[],
  queryIdf: readonly number[],
  matched: Map<number, number>,
): number {
  const commands = commandTerms(unit);
  // The package's own name in its install line is not the step asked for ("how do I build a
  // header with cookie" is not answered by `npm install cookie`).
  const named = new Set(termsOf(unit.cited.passage.title));
  let best = 0;
  queryTerms.forEach((term, i) => {
    if (!commands.has(term) || named.has(term)) return;
    matched.set(i, 1);
    best = Math.max(best, queryIdf[i]!);
  });
  return best;
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
