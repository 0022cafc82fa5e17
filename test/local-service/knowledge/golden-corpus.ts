// A fixed corpus and query set whose retrieval results were recorded (index-golden.json) with
// the index as it was before its build was made faster, so any change to what is indexed, to
// the order terms enter the index or to the scores shows up as a difference.
//
// It goes through every path that builds index state: a rebuild from the store, sources added
// to a held index, a source replaced by new text, renames, and a second rebuild from scratch.
import type { KnowledgeIndex, SearchOptions } from '../../../src/local-service/knowledge/index.js';
import { seededRandom } from '../../seeded-random.js';

/** Words chosen to meet every rule of terms.ts: stems, stop words, case, digits, scripts. */
export const WORDS = (
  'install installing installed installs installation installer running stopped stopping ' +
  'policies policy classes class status business houses house quickly make making made ' +
  'the a of to and in is for that with on as by it from this are or which Config CONFIG ' +
  'config configuring Node node20 v2 x86_64 42 2024 3.14 ½ ٣٤ café CAFÉ Straße naïve résumé ' +
  "İstanbul ΣΟΦΙΑ σοφία Ελλάδα 東京 データ 한국어 𝒳ray 😀emoji e-mail don’t can't it's " +
  'ﬁle ﬂow Ǆemal über ÜBER ümlaut backup backups restore restoring refund refunds pricing ' +
  'price prices bridge bridges slack discord token tokens chunk chunks index indexes'
).split(' ');

export function makeText(rand: () => number, paragraphs: number): string {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const sentence = () => {
    const words = Array.from({ length: 4 + Math.floor(rand() * 14) }, pick);
    const separators = [' ', ' ', ' ', ', ', ' - ', '/', ' (', ') ', '\t'];
    let text = '';
    for (const word of words) {
      text += text === '' ? word : separators[Math.floor(rand() * separators.length)]! + word;
    }
    return `${text}.`;
  };
  const out: string[] = [];
  for (let p = 0; p < paragraphs; p++) {
    const roll = rand();
    if (roll < 0.1) out.push(`${'#'.repeat(1 + Math.floor(rand() * 3))} ${pick()} ${pick()}`);
    else if (roll < 0.15) out.push(`${pick()} ${pick()} overview`);
    else if (roll < 0.2) out.push(`- ${sentence()}\n- ${sentence()}\n- ${sentence()}`);
    else if (roll < 0.23)
      out.push(`| ${pick()} | ${pick()} |\n|---|---|\n| ${pick()} | ${pick()} |`);
    else if (roll < 0.26) out.push(`\`\`\`\n${pick()} --${pick()}\n\n${pick()}\n\`\`\``);
    else if (roll < 0.28) out.push(`  # not a heading ${pick()}  \r\n${sentence()}`);
    const count = 1 + Math.floor(rand() * 6);
    out.push(Array.from({ length: count }, sentence).join(' '));
  }
  return out.join(rand() < 0.5 ? '\n\n' : '\r\n\r\n');
}

type Recorded = [query: string, options: SearchOptions, hits: [string, number, string, number][]];

async function record(
  index: KnowledgeIndex,
  chatbot: string,
  queries: [string, SearchOptions][],
): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for (const [query, options] of queries) {
    const hits = await index.search(chatbot, query, options);
    out.push([
      query,
      options,
      hits.map((hit) => [hit.sourceUuid, hit.chunkIndex, hit.section ?? '', hit.score]),
    ]);
  }
  return out;
}

export function goldenQueries(): [string, SearchOptions][] {
  const rand = seededRandom(99);
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const queries: [string, SearchOptions][] = [
    ['how do I install it?', {}],
    ['instal', {}],
    ['configurng', {}],
    ['CAFE café Café', { limit: 10 }],
    ['東京 データ', {}],
    ['and restoring?', { context: 'backup policies for the bridge' }],
    ['refund prices', { context: 'slack tokens' }],
    ['naive resume', {}],
    ['the of and', {}],
    ['x86 64 node20', {}],
    ['stopping running', { sourceUuids: ['s3', 's7', 's11'] }],
    ['houses', { sourceUuids: [] }],
  ];
  for (let i = 0; i < 60; i++) {
    const words = Array.from({ length: 1 + Math.floor(rand() * 4) }, pick);
    const options: SearchOptions = {};
    if (rand() < 0.2) options.limit = 1 + Math.floor(rand() * 12);
    if (rand() < 0.2) options.context = `${pick()} ${pick()} ${pick()}`;
    queries.push([`how do I ${words.join(' ')}?`, options]);
  }
  return queries;
}

/**
 * Runs the scenario: `open` gives a fresh index over one shared store each time it is called.
 * Returns every search's hits (source, chunk, section, score).
 */
export async function goldenRun(open: () => Promise<KnowledgeIndex>): Promise<Recorded[]> {
  const rand = seededRandom(2024);
  const queries = goldenQueries();
  const add = (index: KnowledgeIndex, i: number, chatbot = 'golden') =>
    index.add({
      uuid: `s${i}`,
      chatbotUuid: chatbot,
      title: `${WORDS[i % WORDS.length]!} guide ${i}`,
      type: 'upload',
      fileName: `s${i}.md`,
      text: makeText(rand, 5 + Math.floor(rand() * 60)),
    });
  const first = await open();
  for (let i = 0; i < 40; i++) await add(first, i); // stored only: built on the first search
  const results = await record(first, 'golden', queries);
  for (let i = 40; i < 50; i++) await add(first, i); // added to the held index
  for (const i of [3, 17, 41]) await add(first, i); // replaced by new text
  await first.rename('s5', 'Backup and restore ΣΟΦΙΑ');
  await first.rename('s44', 'running the installer');
  results.push(...(await record(first, 'golden', queries)));
  await first.close();
  const second = await open(); // rebuilt from the store
  results.push(...(await record(second, 'golden', queries)));
  await second.close();
  return results;
}
