// `npm run bench`: runs every suite (or those named on the command line) and prints one table.
import { formatTable, type BenchRow, type BenchSuite } from './table.js';

const suites: Record<string, () => Promise<{ run: BenchSuite }>> = {
  service: () => import('./service.js'),
  'local-service': () => import('./local-service.js'),
  bridge: () => import('./bridge.js'),
  slack: () => import('./slack.js'),
  discord: () => import('./discord.js'),
};

const wanted = process.argv.slice(2);
const rows: BenchRow[] = [];
for (const [name, load] of Object.entries(suites)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const { run } = await load();
  rows.push(...(await run()));
}
console.log(formatTable(rows));
