// What `npm run eval` prints: a table per kind of question beside the FTS5 floor, the targets
// of issue #12 met or not, the bad endings by kind, and (asked for) each answer with why it
// failed.
import { formatTable, type BenchRow } from '../bench/table.js';
import type { Kind, SetName } from './data.js';
import type { Problem, ProblemKind } from './score.js';

export type RowKind = Kind | 'qa-exact' | 'qa-paraphrase' | 'qa-unrelated';

export interface Outcome {
  id: string;
  set: SetName;
  kind: RowKind;
  question: string;
  /** A follow-up's first question, and what was answered to it. */
  first?: { question: string; answer: string };
  /** The expected document: a corpus path, or "qa:<id>". */
  file: string;
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
  answered: boolean;
  problems: Problem[];
  floor: { doc: string; passage: string; rightFile: boolean; answered: boolean };
  ms: number;
}

const LABELS: Record<RowKind, string> = {
  definition: 'what is X',
  howto: 'how do I',
  option: 'option / setting',
  followup: 'follow-up (2nd question)',
  'qa-exact': 'Q&A pair, asked exactly',
  'qa-paraphrase': 'Q&A pair, paraphrased',
  'qa-unrelated': 'no Q&A pair answers it',
};

const DOC_KINDS: RowKind[] = ['definition', 'howto', 'option', 'followup'];

interface Group {
  label: string;
  outcomes: Outcome[];
}

export function groupsOf(outcomes: Outcome[]): Group[] {
  const of = (kinds: RowKind[]) => outcomes.filter((o) => kinds.includes(o.kind));
  return [
    ...DOC_KINDS.map((k) => ({ label: LABELS[k], outcomes: of([k]) })),
    { label: 'documentation, all kinds', outcomes: of(DOC_KINDS) },
    { label: LABELS['qa-exact'], outcomes: of(['qa-exact']) },
    { label: LABELS['qa-paraphrase'], outcomes: of(['qa-paraphrase']) },
    { label: LABELS['qa-unrelated'], outcomes: of(['qa-unrelated']) },
  ];
}

const share = (outcomes: Outcome[], test: (o: Outcome) => boolean) =>
  outcomes.length === 0 ? 0 : outcomes.filter(test).length / outcomes.length;
const pct = (value: number) => `${Math.round(value * 100)}%`;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
};
const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

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

export function kindTable(outcomes: Outcome[]): string {
  const header = [
    'kind',
    'n',
    'right file 1st',
    'key fact',
    'fact cited',
    'answered',
    'floor answered',
    'bad endings',
    'median words',
  ];
  const rows = groupsOf(outcomes).map(({ label, outcomes: os }) => [
    label,
    String(os.length),
    pct(share(os, (o) => o.rightFile)),
    pct(share(os, (o) => o.facts.every(Boolean))),
    pct(share(os, (o) => o.factsCited)),
    `${pct(share(os, (o) => o.answered))} (${os.filter((o) => o.answered).length})`,
    `${pct(share(os, (o) => o.floor.answered))} (${os.filter((o) => o.floor.answered).length})`,
    String(os.filter((o) => o.problems.length > 0).length),
    String(median(os.map((o) => wordCount(o.answer)))),
  ]);
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

/** The targets of issue #12 as bench rows (area, metric, value, target, ok). */
export function targetRows(outcomes: Outcome[]): BenchRow[] {
  const rows: BenchRow[] = [];
  const area = 'answers';
  const groups = groupsOf(outcomes);
  const docs = groups.find((g) => g.label === 'documentation, all kinds')!.outcomes;
  const answered = share(docs, (o) => o.answered);
  rows.push({
    area,
    metric: 'documentation questions answered',
    value: pct(answered),
    target: '>= 70%',
    ok: answered >= 0.7,
  });
  for (const { label, outcomes: os } of groups) {
    if (os.length === 0 || label === 'documentation, all kinds') continue;
    if (label === LABELS['qa-unrelated']) continue; // a floor always answers: see its own row
    const own = share(os, (o) => o.answered);
    const floor = share(os, (o) => o.floor.answered);
    rows.push({
      area,
      metric: `${label}: answered vs FTS5 floor`,
      value: `${pct(own)} vs ${pct(floor)}`,
      target: '>= floor',
      ok: own >= floor,
    });
  }
  const bad = outcomes.filter((o) => o.problems.length > 0).length;
  rows.push({
    area,
    metric: 'answers with a bad ending',
    value: String(bad),
    target: '0',
    ok: bad === 0,
  });
  const of = (kind: RowKind) => outcomes.filter((o) => o.kind === kind);
  const fu = of('followup');
  const fuOk = fu.filter((o) => o.answered).length;
  rows.push({
    area,
    metric: 'follow-ups answered',
    value: `${fuOk}/${fu.length}`,
    target: '>= 70%',
    ok: fuOk >= 0.7 * fu.length,
  });
  const exact = of('qa-exact');
  const exactOk = exact.filter((o) => o.answered).length;
  rows.push({
    area,
    metric: 'Q&A pairs asked exactly',
    value: `${exactOk}/${exact.length}`,
    target: 'all',
    ok: exactOk === exact.length,
  });
  const para = of('qa-paraphrase');
  const paraOk = para.filter((o) => o.answered).length;
  rows.push({
    area,
    metric: 'Q&A pairs paraphrased',
    value: `${paraOk}/${para.length}`,
    target: '>= 90%',
    ok: paraOk >= 0.9 * para.length,
  });
  const unrelated = of('qa-unrelated');
  const misanswered = unrelated.filter((o) => !o.answered).length;
  if (unrelated.length > 0)
    rows.push({
      area,
      metric: 'questions no pair answers, answered anyway',
      value: `${misanswered}/${unrelated.length}`,
      target: '0',
      ok: misanswered === 0,
    });
  return rows;
}

export const targetsTable = (outcomes: Outcome[]) => formatTable(targetRows(outcomes));

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');

/** Why an outcome is not a clean answer, in a few words. */
export function verdict(o: Outcome): string {
  const why: string[] = [];
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
    `=== ${o.id} [${o.kind}] ${o.answered ? 'ANSWERED' : 'NOT ANSWERED'} (${o.ms.toFixed(0)} ms)`,
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
