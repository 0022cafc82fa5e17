// `npm run bench`: runs every suite (or those named on the command line), each in a process of
// its own so memory figures are its own, and prints one table.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { formatTable, type BenchRow, type BenchSuite } from './table.js';

const suites: Record<string, () => Promise<{ run: BenchSuite }>> = {
  service: () => import('./service.js'),
  'local-service': () => import('./local-service.js'),
  bridge: () => import('./bridge.js'),
  slack: () => import('./slack.js'),
  discord: () => import('./discord.js'),
};

const CHILD_FLAG = '--suite-json';
const args = process.argv.slice(2);

if (args[0] === CHILD_FLAG) {
  const load = suites[args[1] ?? ''];
  if (!load) throw new Error(`unknown suite "${args[1]}"`);
  const rows = await (await load()).run();
  process.stdout.write(`${JSON.stringify(rows)}\n`);
  process.exit(0);
}

const unknown = args.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(
    `unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(suites).join(', ')}`,
  );
  process.exit(2);
}
const rows: BenchRow[] = [];
for (const name of Object.keys(suites)) {
  if (args.length > 0 && !args.includes(name)) continue;
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), CHILD_FLAG, name],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 1024 * 1024 },
  );
  const line = child.stdout.trim().split('\n').at(-1) ?? '';
  if (child.status !== 0 || !line.startsWith('[')) {
    rows.push({ area: name, metric: 'suite failed', value: `exit ${child.status}`, target: '' });
    continue;
  }
  rows.push(...(JSON.parse(line) as BenchRow[]));
}
console.log(formatTable(rows));
