// The extractive answer, end to end over the knowledge index: retrieval (search-index.ts) then
// the writer (compose.ts). An answer quotes its source as written, never invents or cuts a
// sentence, names and cites the source, and says "not found" rather than quote what does not
// answer.
import { describe, expect, it } from 'vitest';
import {
  composeAnswer,
  NOT_FOUND_ANSWER,
  type SourceText,
} from '../../../src/local-service/knowledge/index.js';
import type { SearchOptions } from '../../../src/local-service/knowledge/types.js';
import { testIndex } from './test-index.js';

const BOT = 'bot';
const doc = (uuid: string, title: string, text: string, type = 'upload'): SourceText => ({
  uuid,
  chatbotUuid: BOT,
  title,
  type,
  fileName: `${uuid}.md`,
  text,
});

const GUIDE = doc(
  'guide',
  'Guide',
  [
    '# Relay',
    '',
    'Relay is a message broker for small teams. It stores messages on disk and delivers them in order.',
    '',
    '## Install',
    '',
    'Relay runs on Linux and macOS. To install it, run:',
    '',
    '```sh',
    'curl -fsSL https://relay.example/install.sh | sh',
    '```',
    '',
    '## Options',
    '',
    '| Option | Default | Meaning |',
    '| --- | --- | --- |',
    '| `retention` | `7d` | How long messages are kept. |',
    '| `maxBatch` |  | Most messages sent in one batch. |',
    '',
    '### Timeouts',
    '',
    'The delivery timeout defaults to 30 seconds. A consumer that does not acknowledge a message within the timeout gets it again.',
    '',
    '## Backups',
    '',
    'Back up the data directory while Relay is stopped. A backup taken while it runs may be torn.',
  ].join('\n'),
);

const PRICING = doc(
  'pricing',
  'Pricing',
  'The basic plan costs 10 dollars a month. The pro plan costs 25 dollars a month and adds priority support.',
);

async function ask(query: string, options: SearchOptions = {}, sources = [GUIDE, PRICING]) {
  const index = testIndex();
  for (const source of sources) await index.add(source);
  const passages = await index.search(BOT, query, { limit: 8, ...options });
  await index.close();
  return { passages, answer: composeAnswer(query, passages, { citations: true }) };
}

/** Every sentence of the answer (after its introduction) is in the source as written. */
function expectQuoted(answer: string, source: string) {
  const body = answer.replace(/^According to [^:]+:\s*/gm, '').replace(/ \[\d+\.\d+\]/g, '');
  const flat = (text: string) => text.replace(/\s+/g, ' ');
  for (const line of body.split('\n').filter((l) => /\w/.test(l) && !l.startsWith('```'))) {
    const words = flat(line.replace(/^- /, '').replace(/`/g, ''));
    expect(flat(source.replace(/`/g, ''))).toContain(words.split(', ')[0]!.replace(/^\w+: /, ''));
  }
}

describe('extractive answers', () => {
  it('answers "what is X" with the opening of the document about X, named and cited', async () => {
    const { answer } = await ask('What is Relay?');
    expect(answer.text.split('\n\n')[0]).toBe(
      'According to Guide [1.1]: Relay is a message broker for small teams. It stores messages on disk and delivers them in order.',
    );
    expect(answer.citeData['1.1']).toMatchObject({ data_source_uuid: 'guide', title: 'Guide' });
  });

  it('brings the code block that a sentence ending in ":" introduces', async () => {
    const { answer } = await ask('how do I install relay?');
    expect(answer.text).toContain('To install it, run:\n\n```sh\ncurl -fsSL');
    expect(answer.text).toMatch(/```$/);
    expectQuoted(answer.text, GUIDE.text);
  });

  it('reads a table row with its header, leaving empty cells out', async () => {
    const { answer } = await ask('what is the default retention?');
    expect(answer.text).toContain(
      '- Option: `retention`, Default: `7d`, Meaning: How long messages are kept.',
    );
    const batch = await ask('what does maxBatch mean');
    expect(batch.answer.text).toContain(
      '- Option: `maxBatch`, Meaning: Most messages sent in one batch.',
    );
  });

  it('finds a section by its heading path and gives the passage that path', async () => {
    const { passages, answer } = await ask('what is the delivery timeout?');
    expect(passages[0]).toMatchObject({
      sourceUuid: 'guide',
      section: 'Relay › Options › Timeouts',
    });
    expect(answer.text).toContain('The delivery timeout defaults to 30 seconds.');
  });

  it('ends every answer on a whole sentence of the source', async () => {
    for (const query of [
      'can I back up the data directory while relay runs?',
      'how much is the pro plan',
      'what is Relay',
    ]) {
      const { answer } = await ask(query);
      expect(answer.text).not.toBe(NOT_FOUND_ANSWER);
      expect(answer.text).toMatch(/[.:`] \[\d+\.\d+\]$|[.!?`]$/);
      expectQuoted(answer.text, `${GUIDE.text}\n${PRICING.text}`);
    }
  });

  it('keeps the markup closing a sentence with that sentence, as written', async () => {
    const notes = doc(
      'notes',
      'Logging',
      '# Logging\n\nEach route may set its own log level. _The level applies to routes only, not to `app.log`._ Levels are named.',
    );
    const { answer } = await ask('does the route log level apply to app.log?', {}, [notes]);
    expect(answer.text).toContain('_The level applies to routes only, not to `app.log`._');
    expect(answer.text).not.toContain('. _ ');
  });

  it('reads a misspelt word as the indexed word one edit away', async () => {
    const { answer } = await ask('how long is the retension');
    expect(answer.text).toContain('`retention`');
  });

  it('answers a follow-up with the previous question lending its words', async () => {
    const alone = await ask('and what about the pro one?');
    const { answer } = await ask('and what about the pro one?', {
      previous: { query: 'how much does the basic plan cost' },
    });
    expect(answer.text).toContain('The pro plan costs 25 dollars a month');
    expect(alone.answer.text).toContain('pro plan'); // "pro" alone still finds it
  });

  it('declines a question its sources do not answer, rather than quote a neighbour', async () => {
    for (const query of [
      'does relay support kafka connectors?',
      'what is the capital of portugal',
      'how do I configure TLS certificates for relay',
    ]) {
      expect((await ask(query)).answer).toEqual({ text: NOT_FOUND_ANSWER, citeData: {} });
    }
  });

  it('finds Chinese and Japanese text with questions in those scripts', async () => {
    const zh = doc(
      'zh',
      '指南',
      '# 安装\n\n使用 npm install relay 命令安装本软件。安装之后运行 relay start 启动服务。\n\n# 备份\n\n请在服务停止时备份数据目录。',
    );
    const ja = doc(
      'ja',
      'ガイド',
      '# 設定\n\n設定ファイルは config.toml です。起動時に読み込まれます。\n\n# バックアップ\n\nサービスを停止してからデータを保存してください。',
    );
    const install = await ask('如何安装这个软件？', {}, [zh, ja, GUIDE]);
    expect(install.answer.text).toContain('使用 npm install relay 命令安装本软件。');
    const config = await ask('設定ファイルはどこですか', {}, [zh, ja, GUIDE]);
    expect(config.answer.text).toContain('設定ファイルは config.toml です。');
  });

  it('answers from the document in the question’s script when both languages say it', async () => {
    const en = doc(
      'en',
      'README.md',
      '# Relay\n\nRelay is a message broker for small teams. It stores messages on disk, delivers them in order, and keeps working when a consumer is slow or goes away for a while.',
    );
    const zh = doc(
      'zh',
      'README-zh.md',
      '# Relay\n\nRelay 是一个为小团队设计的消息代理。Relay 很快，Relay 很小。',
    );
    const english = await ask('what is relay?', {}, [zh, en]);
    const first = (text: string) => text.split('\n\n')[0];
    expect(first(english.answer.text)).toContain('Relay is a message broker for small teams.');
    const chinese = await ask('Relay 是什么消息代理？', {}, [en, zh]);
    expect(first(chinese.answer.text)).toContain('Relay 是一个为小团队设计的消息代理。');
  });

  it('never fails on a hostile or empty question', async () => {
    const hostile = [
      '',
      '   ',
      'the and of is it',
      '?!…',
      '🙂🚀🔥',
      '"',
      '"relay',
      'relay*',
      'NEAR(relay backup)',
      'relay NOT backup',
      '-relay',
      'title: relay',
      '{text}: relay',
      'relay AND OR NOT',
      "'; DROP TABLE chunks; --",
      'Relay 的 backup について',
      'relay '.repeat(4000),
    ];
    for (const query of hostile) {
      const { answer } = await ask(query);
      expect(typeof answer.text).toBe('string');
      expect(answer.text.length).toBeGreaterThan(0);
    }
    expect((await ask('?!…')).answer.text).toBe(NOT_FOUND_ANSWER);
    expect((await ask('🙂🚀🔥')).answer.text).toBe(NOT_FOUND_ANSWER);
  });
});
