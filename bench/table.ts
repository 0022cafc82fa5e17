// One row of `npm run bench`: what was measured, the figure, and the target it is held to.
export interface BenchRow {
  /** Area, e.g. "service client", "local service", "bridge", "slack", "discord". */
  area: string;
  /** What was measured, e.g. "stream throughput (10 MB, 1-200 B chunks)". */
  metric: string;
  /** The measured figure with its unit, e.g. "412 MB/s". */
  value: string;
  /** The target, e.g. ">= 200 MB/s"; "" when none. */
  target: string;
  /** Whether the target was met; undefined when there is no target. */
  ok?: boolean;
}

export type BenchSuite = () => Promise<BenchRow[]>;

export function formatTable(rows: BenchRow[]): string {
  const header = ['area', 'metric', 'value', 'target', 'ok'];
  const cells = rows.map((r) => [
    r.area,
    r.metric,
    r.value,
    r.target,
    r.ok === undefined ? '' : r.ok ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...cells.map(line),
  ].join('\n');
}

/** Percentile of a list of numbers (p in 0..100), nearest-rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
