// A retrieved chunk read as what an answer can quote: its sentences (Intl.Segmenter), list
// items, table rows (each with its header: "Plan: Pro, Seats: 5") and code blocks, as written
// and cleaned of markup (markdown.ts). The best window is the run of whole units, about an
// answer long, that holds the most of the question's weight: where its words stand together.
import { type Block, blocksOf } from './markdown.js';
import { characterCredit, isCjkWord, stemsOf, withoutLinkTargets } from './words.js';
import { sentencesOf } from './segments.js';

/**
 * Words an answer's window may hold: a chat message read at a glance, a little shorter than
 * the ~150-word passages of the plain FTS5 floor. A single unit longer than this is kept whole.
 */
const ANSWER_WORDS = 120;
/**
 * What a CJK pair of the question earns when the passage holds only its Chinese characters
 * (words.ts characterCredit): half, as a shared character is evidence of the same word, not
 * proof of it.
 */
const CHARACTER_CREDIT = 0.5;

export interface Unit {
  kind: 'sentence' | 'item' | 'row' | 'code';
  /** As the answer writes it (an item with its bullet, a code block fenced). */
  text: string;
  /** Index of the block it comes from: sentences of one block are written as one paragraph. */
  block: number;
  words: number;
  stems: Set<string>;
}

export interface Window {
  units: Unit[];
  /** Share of the question's weight the window holds, 0..1 (see weighedIn). */
  coverage: number;
}

/** Question terms and their weights (rarity; a previous question's terms count at most as much). */
export type Weights = ReadonlyMap<string, number>;

/** CJK letters and their full-width punctuation: written with no space between them. */
const WIDE = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/;
/** What joins two pieces of one paragraph: a space, except between CJK (as CSS Text does). */
const glue = (before: string, after: string) =>
  WIDE.test(before.at(-1) ?? '') && WIDE.test(after[0] ?? '') ? '' : ' ';
const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A unit; code counts no words against the window's budget, since the chat shows it as a
 * block to copy, not prose to read (the chunk bounds its length).
 */
function unit(kind: Unit['kind'], text: string, block: number): Unit {
  const words = kind === 'code' ? 0 : countWords(text);
  return { kind, text, block, words, stems: stemsOf(withoutLinkTargets(text)) };
}

function unitsOfBlock(block: Block, index: number): Unit[] {
  switch (block.kind) {
    case 'paragraph': {
      const flat = block.text.replace(/\s*\n\s*/g, (_, at: number, text: string) =>
        glue(text.slice(0, at), text.slice(at).trimStart()),
      );
      // What Intl.Segmenter puts before a sentence's first word but after its own space, such
      // as the "_" closing an emphasised sentence before it, stays with that sentence, as
      // written; so does a last piece with no word at all.
      const pieces: string[] = [];
      for (const { segment } of sentencesOf(flat)) {
        const closing =
          pieces.length > 0 ? (/^[^\p{L}\p{N}\s]+(?=\s|$)/u.exec(segment)?.[0] ?? '') : '';
        if (closing !== '') pieces[pieces.length - 1] += closing;
        const rest = segment.slice(closing.length);
        if (/[\p{L}\p{N}]/u.test(rest) || pieces.length === 0) pieces.push(rest);
        else pieces[pieces.length - 1] += rest;
      }
      return pieces
        .map((piece) => piece.trim())
        .filter(Boolean)
        .map((sentence) => unit('sentence', sentence, index));
    }
    case 'item':
      return [unit('item', `${block.bullet ?? '-'} ${block.text}`, index)];
    case 'row': {
      const cells = block.cells ?? [block.text];
      const named = cells.flatMap((cell, i) => {
        const name = block.header?.[i];
        if (cell === '') return [];
        return [name && name !== cell ? `${name}: ${cell}` : cell];
      });
      return [unit('row', `- ${named.join(', ')}`, index)];
    }
    case 'code':
      return [unit('code', block.text, index)];
    default:
      return []; // headings travel in the section path
  }
}

/** The units of a chunk's text, in order. */
export function unitsOf(text: string): Unit[] {
  return blocksOf(text).flatMap(unitsOfBlock);
}

/** The share of the weights held by these stems (and by the words that always travel along). */
export function weighedIn(weights: Weights, ...held: ReadonlySet<string>[]): number {
  let total = 0;
  let found = 0;
  for (const [term, weight] of weights) {
    total += weight;
    if (held.some((stems) => stems.has(term))) found += weight;
    else if (isCjkWord(term)) found += CHARACTER_CREDIT * characterCredit(term, held) * weight;
  }
  return total === 0 ? 0 : found / total;
}

/**
 * The window of whole units that holds the most of the question: it opens on a unit holding a
 * question term and reads on while it fits ANSWER_WORDS; a lead-in ending in a colon brings what
 * it introduces even past the budget. Ties go to the earlier window. `context` (the heading
 * path and title) counts for every window alike.
 */
export function bestWindow(units: Unit[], weights: Weights, context: ReadonlySet<string>): Window {
  let best: Window = { units: units.slice(0, 1), coverage: -1 };
  units.forEach((first, start) => {
    if (start > 0 && weighedIn(weights, first.stems) === 0) return;
    const taken = [first];
    let words = first.words;
    for (const next of units.slice(start + 1)) {
      // A lead-in ends in a colon, full-width in CJK text ("使用方式：").
      const introduced = /[:：]\s*$/.test(taken.at(-1)!.text);
      if (words + next.words > ANSWER_WORDS && !introduced) break;
      taken.push(next);
      words += next.words;
    }
    const coverage = weighedIn(weights, context, ...taken.map((u) => u.stems));
    if (coverage > best.coverage) best = { units: taken, coverage };
  });
  return best;
}

/** The window as Markdown: a block's sentences as one paragraph, other units on their lines. */
export function windowText(units: Unit[]): string {
  let text = '';
  units.forEach((current, i) => {
    const previous = units[i - 1];
    if (previous === undefined) text = current.text;
    else if (
      current.kind === 'sentence' &&
      previous.kind === 'sentence' &&
      previous.block === current.block
    )
      text += glue(text, current.text) + current.text;
    else if (
      current.kind !== 'code' &&
      previous.kind !== 'code' &&
      previous.kind !== 'sentence' &&
      current.kind !== 'sentence'
    )
      text += `\n${current.text}`;
    else text += `\n\n${current.text}`;
  });
  return text;
}
