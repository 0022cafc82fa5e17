// Writing the chosen windows as the answer's Markdown: each introduced once by its source's
// name ("According to X: …"; a Q&A answer stated plainly), a [source.chunk] marker after the
// opening sentences, code blocks and lists on their own lines, never inside a sentence.
import type { CiteEntry } from '../../service/types.js';
import type { ComposedAnswer } from './types.js';
import type { Unit } from './units.js';
import { joinParts, type Part } from './window.js';

/** Puts a marker at the end of a sentence, before a closing colon. */
function withMarker(sentence: string, key: string): string {
  return sentence.endsWith(':') ? `${sentence.slice(0, -1)} [${key}]:` : `${sentence} [${key}]`;
}

function sourceName(unit: Unit): string {
  const { passage } = unit.cited;
  return passage.title.trim() || passage.fileName.trim() || 'one of my sources';
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
