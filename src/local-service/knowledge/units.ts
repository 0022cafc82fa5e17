// What the answer writer chooses among: the units of a retrieved passage (sentences of its
// paragraphs, list items, table rows), each with the terms it stands for. Headings are not
// units but lend their words to their section; a question lends its words to its answer; a
// unit ending with ":" (or a caption right before a code block) carries the code block or
// list it introduces, so the two are written together and never glued into one sentence.
import type { CitedPassage } from './cite.js';
import { codeEntries } from './code-entries.js';
import { type Block, blocksOf } from './markdown.js';
import { spokenInline } from './markdown-inline.js';
import { splitSentences } from './sentences.js';
import { termsOf } from './terms.js';
import { rowLine } from './window.js';

export interface Unit {
  cited: CitedPassage;
  /** The passage's rank among those retrieved (0 is best). */
  rank: number;
  /** Order within the passage. */
  position: number;
  /** Its passage's blocks, read once and shared by the passage's units (window.ts reads on). */
  blocks: readonly Block[];
  /** Where it starts in the passage: its block (in blocks) and its sentence within the block. */
  block: number;
  sentence: number;
  /** An entry is an option of a long code block, with its comments (code-entries.ts). */
  kind: 'sentence' | 'item' | 'row' | 'entry';
  /** As written in the answer: inline Markdown kept, relative links unwrapped. */
  text: string;
  /** A code block or list written right after the unit. */
  carried?: string;
  /** Units written as part of `carried` (list items), not to be chosen again. */
  carriedUnits: Unit[];
  /** Term → how strongly the unit stands for it, 0..1 (own words 1, lent or quoted less). */
  weights: Map<string, number>;
  /** How many distinct words of its own it has (at least 1). */
  ownTerms: number;
  /** Terms of the heading of its section. */
  section: Set<string>;
}

/** What a heading lends each unit of its section; a question lends its answer all. */
const HEADING_CARRY = 0.5;
const QUOTED_WEIGHT = 0.3;
const CARRIED_CODE_WEIGHT = 0.5;
const CARRIED_LIST_WEIGHT = 0.3;
const MAX_CARRIED_ITEMS = 12;

const QUOTED = /"[^"\n]*"|“[^”\n]*”/g;
const ends = (text: string) => /[.!?…]["'”’)\]*_`]*$/.test(text.trim());
const isQuestion = (text: string) => /\?["'”’)*_]*$/.test(text.trim());

function raise(weights: Map<string, number>, terms: Iterable<string>, weight: number): void {
  for (const term of terms) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
}

/** A short line without an ending, followed by prose: reads as a heading. */
function isLabel(block: Block, next: Block | undefined): boolean {
  return (
    block.kind === 'paragraph' &&
    !block.text.includes('\n') &&
    next?.kind !== 'code' &&
    !ends(block.text) &&
    !block.text.trim().endsWith(':') &&
    block.text.split(/\s+/).length < 8
  );
}

/** The units of one passage, in order. */
export function unitsOf(cited: CitedPassage, rank: number): Unit[] {
  const blocks = blocksOf(cited.passage.text);
  const units: Unit[] = [];
  let section = cited.passage.section ?? '';
  let question: string | undefined;
  /** Block index → the unit that writes it as part of its list; unit → its block. */
  const carriers = new Map<number, Unit>();
  const blockOf = new Map<Unit, number>();
  let b = 0;
  const make = (kind: Unit['kind'], text: string, source: string, sentence = 0): Unit => {
    const raw = spokenInline(source); // where its links point is not what it says
    const weights = new Map<string, number>();
    raise(weights, termsOf(section), HEADING_CARRY);
    if (question !== undefined) raise(weights, termsOf(question), 1);
    raise(weights, termsOf(raw.replace(QUOTED, ' ')), 1);
    for (const quoted of raw.match(QUOTED) ?? []) raise(weights, termsOf(quoted), QUOTED_WEIGHT);
    const ownTerms = Math.max(1, new Set(termsOf(raw)).size);
    const unit: Unit = {
      ...{ cited, rank, position: units.length, blocks, block: b, sentence, kind, text, weights },
      ownTerms,
      section: new Set(termsOf(section)),
      carriedUnits: [],
    };
    units.push(unit);
    blockOf.set(unit, b);
    question = undefined;
    return unit;
  };
  for (; b < blocks.length; b++) {
    const block = blocks[b]!;
    const next = blocks[b + 1];
    if (block.kind === 'heading' || isLabel(block, next)) {
      section = block.text;
      question = undefined;
      // A heading right over a code block is that block's only introduction.
      if (next?.kind === 'code') carry(make('sentence', `${block.text}:`, block.text), blocks, b);
      continue;
    }
    if (block.kind === 'code') {
      // Written whole with the unit that introduces it; a long one's options also stand alone.
      for (const entry of codeEntries(block.text)) make('entry', entry.snippet, entry.words);
      continue;
    }
    if (block.kind === 'row') {
      if ((block.cells ?? []).some((cell) => cell !== '')) make('row', rowLine(block), block.text);
      continue;
    }
    if (block.kind === 'paragraph' && isQuestion(block.text) && next?.kind === 'paragraph') {
      question = block.text; // a Q&A pair: the question lends its words to the answer
      continue;
    }
    const sentences =
      block.kind === 'item' ? [block.text] : splitSentences(block.text).filter((s) => s !== '');
    let last: Unit | undefined;
    sentences.forEach((sentence, i) => {
      // A chunk cut inside a paragraph starts with the tail of a sentence: not a unit.
      if (i === 0 && b === 0 && cited.passage.chunkIndex > 0 && /^\p{Ll}/u.test(sentence)) return;
      // A question asks, it does not answer: it lends its words to what follows it.
      if (isQuestion(sentence) && (i < sentences.length - 1 || next !== undefined)) {
        question = sentence;
        return;
      }
      const kind = block.kind === 'item' ? 'item' : 'sentence';
      last = make(kind, sentence, sentence, i);
    });
    if (last !== undefined) for (const i of carry(last, blocks, b)) carriers.set(i, last);
  }
  for (const unit of units) {
    const carrier = carriers.get(blockOf.get(unit) ?? -1);
    carrier?.carriedUnits.push(unit);
  }
  return units.filter((unit) => !unit.text.endsWith(':') || unit.carried !== undefined);
}

/** Attaches the code block or list that `unit` (the last of block b) introduces. */
function carry(unit: Unit, blocks: Block[], b: number): number[] {
  const block = blocks[b]!;
  const next = blocks[b + 1];
  const introduces = unit.text.endsWith(':');
  if (next?.kind === 'code' && (introduces || (block.kind === 'paragraph' && !ends(unit.text)))) {
    unit.carried = next.text;
    raise(unit.weights, termsOf(next.text.replace(/^.*\n|\n.*$/g, '')), CARRIED_CODE_WEIGHT);
    return [];
  }
  if (!introduces || block.kind !== 'paragraph' || next?.kind !== 'item') return [];
  const items: string[] = [];
  const carried: number[] = [];
  for (let i = b + 1; i < blocks.length && blocks[i]!.kind === 'item'; i++) {
    if (items.length === MAX_CARRIED_ITEMS) break;
    const item = blocks[i]!;
    items.push(`${/\d/.test(item.bullet ?? '') ? item.bullet : '-'} ${item.text}`);
    carried.push(i);
  }
  unit.carried = items.join('\n');
  raise(unit.weights, termsOf(items.join(' ')), CARRIED_LIST_WEIGHT);
  return carried;
}
