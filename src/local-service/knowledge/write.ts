// Writing the chosen units as the answer's Markdown: one paragraph per source ("According to
// X: …", once per source, best source first; a Q&A answer stated plainly), units in document
// order, a [source.chunk] marker after the last unit taken from each passage (and before a
// block a unit carries), and carried code blocks or lists on their own lines, never inside a
// sentence.
import type { CiteEntry } from '../../service/types.js';
import type { ComposedAnswer } from './types.js';
import type { Unit } from './units.js';
import { joinParts, type Part } from './window.js';

/** The unit as a finished sentence: list bullets and "A:" labels dropped, an ending added. */
export function readable(unit: Unit): string {
  const bare = unit.text.replace(/^(?:(?:answer|a)\s*:\s*)/i, '').trim();
  if (unit.carried !== undefined && bare.endsWith(':')) return bare;
  if (/[.!?…]["'”’)\]*_`]*$/.test(bare) && !/[.!?…]`$/.test(bare)) return bare;
  return `${bare.replace(/[,;:]+$/, '')}.`;
}

/** Puts a marker at the end of a sentence, before a closing colon. */
function withMarker(sentence: string, key: string): string {
  return sentence.endsWith(':') ? `${sentence.slice(0, -1)} [${key}]:` : `${sentence} [${key}]`;
}

function sourceName(unit: Unit): string {
  const { passage } = unit.cited;
  return passage.title.trim() || passage.fileName.trim() || 'one of my sources';
}

export function writeAnswer(chosen: Unit[], citations: boolean): ComposedAnswer {
  // Grouped by how the source is named, so one name is never introduced twice.
  // A Q&A source's title is its question: its answer is stated without "According to <question>".
  const groups = new Map<string, Unit[]>();
  for (const unit of chosen) {
    const { passage } = unit.cited;
    const name = passage.type === 'qa' ? `\u0000qa:${passage.sourceUuid}` : sourceName(unit);
    groups.set(name, [...(groups.get(name) ?? []), unit]);
  }
  const citeData: Record<string, CiteEntry> = {};
  const paragraphs: string[] = [];
  for (const [name, group] of groups) {
    group.sort(
      (a, b) =>
        a.cited.passage.sourceUuid.localeCompare(b.cited.passage.sourceUuid) ||
        a.cited.passage.chunkIndex - b.cited.passage.chunkIndex ||
        a.position - b.position,
    );
    const parts: string[] = [];
    let prose: string[] = name.startsWith('\u0000qa:') ? [] : [`According to ${name}:`];
    group.forEach((unit, i) => {
      let sentence = readable(unit);
      const lastOfPassage = group[i + 1]?.cited !== unit.cited;
      if (citations && (lastOfPassage || unit.carried !== undefined)) {
        citeData[unit.cited.key] = unit.cited.entry;
        sentence = withMarker(sentence, unit.cited.key);
      }
      prose.push(sentence);
      if (unit.carried === undefined) return;
      parts.push(prose.join(' '), unit.carried);
      prose = [];
    });
    if (prose.length > 0) parts.push(prose.join(' '));
    paragraphs.push(parts.join('\n\n'));
  }
  return { text: paragraphs.join('\n\n'), citeData };
}

/**
 * The answer as the passage each lead unit opens (window.ts: the best one, perhaps one more
 * source supporting it), each introduced by its source's name ("According to X: …", or stated
 * plainly for a Q&A source), the citation marker after the opening sentences (before their
 * closing ":"), or on the introduction when the passage opens with a list, a table or code.
 */
export function writeWindowAnswer(
  windows: { lead: Unit; parts: Part[] }[],
  citations: boolean,
): ComposedAnswer {
  const citeData: Record<string, CiteEntry> = {};
  const texts = windows.map(({ lead, parts }) => {
    const key = lead.cited.key;
    if (citations) citeData[key] = lead.cited.entry;
    const intro = lead.cited.passage.type === 'qa' ? '' : `According to ${sourceName(lead)}`;
    const [first, ...rest] = parts;
    if (first === undefined) return intro;
    if (first.prose) {
      const opening = citations ? withMarker(first.text, key) : first.text;
      const lead = intro === '' ? opening : `${intro}: ${opening}`;
      return joinParts([{ ...first, text: lead }, ...rest]);
    }
    const marker = citations ? ` [${key}]` : '';
    const heading = intro === '' ? (marker === '' ? [] : [`[${key}]`]) : [`${intro}${marker}:`];
    return [...heading, joinParts(parts)].join('\n\n');
  });
  return { text: texts.join('\n\n'), citeData };
}
