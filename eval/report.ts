// What `npm run eval` prints: per set, a table per kind of question beside the FTS5 floor of
// the same run, the bad endings by kind, and (asked for) each answer with why it failed. The
// targets are in targets.ts.
import type { BKind } from './data-b.js';
import type { SetName } from './data.js';
import type { Problem, ProblemKind } from './score.js';

export type RowKind = BKind | 'qa-exact' | 'qa-paraphrase' | 'qa-unrelated';

export interface Outcome {
  id: string;
  set: SetName;
  kind: RowKind;
  question: string;
  /** A follow-up's first question, and what was answered to it. */
  first?: { question: string; answer: string };
  /** The expected document: a corpus path, or "qa:<id>"; "" when nothing answers. */
  file: string;
  /** How the expected document was uploaded (markdown, html, text, pdf, docx), or "qa". */
  format: string;
  /** The question is in Chinese, Japanese or Korean script. */
  cjk: boolean;
  /** No source answers it: the right answer is the "could not find" notice. */
  unanswerable: boolean;
  keyFacts: string[];
  answer: string;
  citedDocs: string[];
  rightFile: boolean;
  /** Each key fact: found in the answer or not. */
  facts: boolean[];
  /** Every key fact is in the passages the answer cites: retrieval found it, whatever was said. */
  factsCited: boolean;
  notFound: boolean;
  wrong: string[];
  /** Every key fact, no "could not find", nothing wrong; for an unanswerable one: declined. */
  answered: boolean;
  problems: Problem[];
  /** Words of the answer outside code blocks (score.ts proseWords). */
  words: number;
  floor: {
    doc: string;
    passage: string;
    rightFile: boolean;
    answered: boolean;
    /** One of the floor's top 3 passages holds every key fact. */
    top3: boolean;
  };
  ms: number;
}

export const LABELS: Record<RowKind, string> = {
  definition: 'what is X',
  howto: 'how do I',
  option: 'option / setting',
  followup: 'follow-up (2nd question)',
  paraphrase: 'paraphrased (not the document\u2019s words)',
  unanswerable: 'not in the documents: declined',
  'qa-exact': 'Q&A pair, asked exactly',
  'qa-paraphrase': 'Q&A pair, paraphrased',
  'qa-unrelated': 'no Q&A pair answers it: declined',
};

/** The kinds of documentation question, each held to the floor + 15 points. */
export const DOC_KINDS: RowKind[] = ['definition', 'howto', 'option', 'followup', 'paraphrase'];
export const ALL_DOCS = 'documentation, all kinds';
export const CJK_ROW = 'CJK questions over CJK documents';
const DECLINE_KINDS: RowKind[] = ['unanswerable', 'qa-unrelated'];

export interface Group {
  label: string;
  /** What the group's answers are held to (targets.ts). */
  role: 'kind' | 'all' | 'cjk' | 'format' | 'decline' | 'qa-exact';
  outcomes: Outcome[];
}

/** The rows of one set's table; rows with no question are left out. */
export function groupsOf(outcomes: Outcome[]): Group[] {
  const of = (kinds: RowKind[]) => outcomes.filter((o) => kinds.includes(o.kind));
  const docs = of(DOC_KINDS);
  const formats = [...new Set(docs.map((o) => o.format))].sort();
  const groups: Group[] = [
    ...DOC_KINDS.map((k) => ({ label: LABELS[k], role: 'kind' as const, outcomes: of([k]) })),
    { label: ALL_DOCS, role: 'all', outcomes: docs },
    { label: CJK_ROW, role: 'cjk', outcomes: docs.filter((o) => o.cjk) },
    ...(formats.length > 1
      ? formats.map((f) => ({
          label: `  uploaded as ${f}`,
          role: 'format' as const,
          outcomes: docs.filter((o) => o.format === f),
        }))
      : []),
    ...DECLINE_KINDS.map((k) => ({
      label: LABELS[k],
      role: 'decline' as const,
      outcomes: of([k]),
    })),
    { label: LABELS['qa-exact'], role: 'qa-exact', outcomes: of(['qa-exact']) },
    { label: LABELS['qa-paraphrase'], role: 'kind', outcomes: of(['qa-paraphrase']) },
  ];
  return groups.filter((g) => g.outcomes.length > 0);
}

export const share = (outcomes: Outcome[], test: (o: Outcome) => boolean) =>
  outcomes.length === 0 ? 0 : outcomes.filter(test).length / outcomes.length;
export const pct = (value: number) => `${Math.round(value * 100)}%`;
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
};
/** Answers longer than this (outside code) do not read well in a chat thread (issue #20). */
export const MAX_WORDS = 300;

/** The key facts are in the answer and its first citation is the right file. */
export const factFromFile = (o: Outcome) => o.answered && o.rightFile;
/** The same of the floor's top passage. */
export const floorFromFile = (o: Outcome) => o.floor.answered && o.floor.rightFile;
/** "Could not find" although one of the floor's top 3 passages holds every key fact. */
export const missedTop3 = (o: Outcome) => !o.unanswerable && o.notFound && o.floor.top3;
/** The answers that say something (not the "could not find" notice): their length counts. */
export const spoken = (os: Outcome[]) => os.filter((o) => !o.notFound);

/** A plain table with a header row and aligned columns. */
function grid(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

const counted = (os: Outcome[], test: (o: Outcome) => boolean) =>
  `${pct(share(os, test))} (${os.filter(test).length})`;

export function kindTable(outcomes: Outcome[]): string {
  const header = [
    'kind',
    'n',
    'right file 1st',
    'floor file 1st',
    'key fact',
    'fact cited',
    'answered',
    'fact + right file',
    'floor',
    'floor top 3',
    'not found, top 3 holds it',
    'bad endings',
    'median words',
    `> ${MAX_WORDS} words`,
  ];
  const rows = groupsOf(outcomes).map(({ label, role, outcomes: os }) => {
    const decline = role === 'decline';
    const dash = (text: string) => (decline ? '-' : text);
    return [
      label,
      String(os.length),
      dash(pct(share(os, (o) => o.rightFile))),
      dash(pct(share(os, (o) => o.floor.rightFile))),
      dash(pct(share(os, (o) => o.facts.every(Boolean)))),
      dash(pct(share(os, (o) => o.factsCited))),
      counted(os, (o) => o.answered),
      dash(counted(os, factFromFile)),
      dash(counted(os, floorFromFile)),
      dash(counted(os, (o) => o.floor.top3)),
      dash(String(os.filter(missedTop3).length)),
      String(os.filter((o) => o.problems.length > 0).length),
      String(median(spoken(os).map((o) => o.words))),
      String(os.filter((o) => o.words > MAX_WORDS).length),
    ];
  });
  return grid(header, rows);
}

/** How many answers have each kind of bad ending. */
export function problemTable(outcomes: Outcome[]): string {
  const counts = new Map<ProblemKind, number>();
  for (const o of outcomes) {
    for (const kind of new Set(o.problems.map((p) => p.kind))) {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
  }
  if (counts.size === 0) return 'No bad endings.';
  const rows = [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, String(n)]);
  return grid(['bad ending', 'answers'], rows);
}

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');

/** Why an outcome is not a clean answer, in a few words. */
export function verdict(o: Outcome): string {
  const why: string[] = [];
  if (o.unanswerable) return o.notFound ? 'ok (declined)' : 'answered a question no source answers';
  if (o.notFound) why.push('says it could not find it');
  const missing = o.keyFacts.filter((_, i) => !o.facts[i]);
  if (missing.length > 0) {
    why.push(
      `missing key fact ${missing.join(', ')}${o.factsCited ? ' (though a cited passage holds it)' : ''}`,
    );
  }
  if (o.wrong.length > 0) why.push(`wrong: ${o.wrong.join(', ')}`);
  if (!o.rightFile) why.push(`first citation ${o.citedDocs[0] ?? '(none)'}, expected ${o.file}`);
  if (o.problems.length > 0) why.push(`bad endings: ${o.problems.map((p) => p.kind).join(', ')}`);
  return why.length === 0 ? 'ok' : why.join('; ');
}

export function describe(o: Outcome): string {
  const lines = [
    `=== ${o.id} [${o.set} ${o.kind}${o.format ? `, ${o.format}` : ''}] ${o.answered ? 'ANSWERED' : 'NOT ANSWERED'} (${o.ms.toFixed(0)} ms, ${o.words} words)`,
  ];
  if (o.first) {
    lines.push(`  first Q: ${o.first.question}`);
    lines.push(
      indent(
        o.first.answer.length > 300 ? `${o.first.answer.slice(0, 300)} …` : o.first.answer,
        '    | ',
      ),
    );
  }
  lines.push(`  Q: ${o.question}`);
  lines.push(
    `  expected: ${o.file}   key facts: ${o.keyFacts.map((f, i) => `${f} ${o.facts[i] ? '✓' : '✗'}`).join('  ')}`,
  );
  lines.push(`  cited: ${o.citedDocs.join(', ') || '(nothing)'}`);
  lines.push(`  verdict: ${verdict(o)}`);
  for (const p of o.problems)
    lines.push(`  bad ending (${p.kind}): ${p.detail.replace(/\n/g, '⏎')}`);
  lines.push('  answer:');
  lines.push(indent(o.answer, '    | '));
  const floorText =
    o.floor.passage.length > 400 ? `${o.floor.passage.slice(0, 400)} …` : o.floor.passage;
  lines.push(
    `  floor (${o.floor.doc || 'nothing'}; ${o.floor.answered ? 'answers' : 'does not answer'}):`,
  );
  lines.push(indent(floorText, '    ~ '));
  return lines.join('\n');
}

/** What changed since an earlier run's --json: questions answered or clean now, or no longer. */
export function compareWith(before: Outcome[], now: Outcome[]): string {
  const earlier = new Map(before.map((o) => [o.id, o]));
  const list = (label: string, ids: string[]) =>
    `${label} (${ids.length}): ${ids.length === 0 ? '-' : ids.join(', ')}`;
  const was = (o: Outcome, test: (x: Outcome) => boolean) => {
    const old = earlier.get(o.id);
    return old === undefined ? undefined : test(old);
  };
  const clean = (o: Outcome) => o.problems.length === 0;
  const answered = (o: Outcome) => o.answered;
  return [
    'Compared with the baseline:',
    list(
      '  newly answered',
      now.filter((o) => o.answered && was(o, answered) === false).map((o) => o.id),
    ),
    list(
      '  NO LONGER answered',
      now.filter((o) => !o.answered && was(o, answered) === true).map((o) => o.id),
    ),
    list(
      '  bad ending fixed',
      now.filter((o) => clean(o) && was(o, clean) === false).map((o) => o.id),
    ),
    list(
      '  NEW bad ending',
      now.filter((o) => !clean(o) && was(o, clean) === true).map((o) => o.id),
    ),
  ].join('\n');
}
