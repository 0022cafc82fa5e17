// The extractive writer on Markdown sources: whole units, blocks carried by their lead-in,
// no fragments, one introduction per source, headings that help.
import { describe, expect, it } from 'vitest';
import {
  chunkText,
  composeAnswer,
  NOT_FOUND_ANSWER,
  type Passage,
} from '../../../src/local-service/knowledge/index.js';
import { testIndex } from './test-index.js';

const passage = (text: string, extra: Partial<Passage> = {}): Passage => ({
  sourceUuid: 'readme',
  title: 'README.md',
  fileName: 'README.md',
  type: 'upload',
  chunkIndex: 0,
  text,
  score: 1,
  ...extra,
});

const README = [
  '# demo',
  '',
  'demo answers questions from your documents. Ask it "How do I start demo?" and the answer',
  'comes with its sources.',
  '',
  'To run the tests (typecheck, lint, and the test suite):',
  '',
  '```sh',
  'npm test',
  '```',
  '',
  '## Connecting Slack',
  '',
  '`demo start` starts every platform whose tokens are present:',
  'Slack with `SLACK_BOT_TOKEN`. The setup guide is [docs/slack.md](docs/slack.md).',
].join('\n');

describe('composeAnswer on Markdown', () => {
  it('writes a code block whole, after the sentence that introduces it, marker before ":"', () => {
    const answer = composeAnswer('How do I run the tests?', [passage(README)], {
      citations: true,
    });
    expect(answer.text).toBe(
      'According to README.md: To run the tests (typecheck, lint, and the test suite) [1.1]:\n\n' +
        '```sh\nnpm test\n```',
    );
    expect(Object.keys(answer.citeData)).toEqual(['1.1']);
  });

  it('never starts a sentence with a lowercase fragment and keeps wrapped colons inside', () => {
    const answer = composeAnswer('How do I connect demo to Slack?', [passage(README)], {
      citations: false,
    });
    expect(answer.text).toContain(
      '`demo start` starts every platform whose tokens are present: Slack with `SLACK_BOT_TOKEN`.',
    );
    expect(answer.text).not.toMatch(/(?:^|[.:] )(?:and|comes) /);
    expect(answer.text).not.toContain(':.');
    expect(answer.text).not.toContain('](docs/'); // a relative link reads as its words
    // A chunk that starts in the middle of a sentence does not lend its tail.
    const cut = composeAnswer(
      'What do tokens start?',
      [passage('tokens start when set. Tokens start Slack.', { chunkIndex: 3 })],
      { citations: false },
    );
    expect(cut.text).toBe('According to README.md: Tokens start Slack.');
  });

  it('carries the list a sentence ending with ":" introduces, and writes its items once', () => {
    const text = 'Install steps:\n\n- Download the installer.\n- Run the installer as admin.\n';
    const answer = composeAnswer('installer steps', [passage(text)], { citations: true });
    expect(answer.text).toBe(
      'According to README.md: Install steps [1.1]:\n\n- Download the installer.\n- Run the installer as admin.',
    );
  });

  it('lets a heading introduce the code block right under it', () => {
    const text =
      '## Docker\n\n```sh\ndocker run --rm -it demo\n```\n\nThe image runs as a non-root user.';
    const answer = composeAnswer('How do I run it with Docker?', [passage(text)], {
      citations: false,
    });
    expect(answer.text).toMatch(
      /^According to README\.md:\n\n\*\*Docker\*\*\n\n```sh\ndocker run --rm -it demo\n```/,
    );
  });

  it('reads a table row as a labelled line, not as prose glued to its neighbours', () => {
    const text =
      '| Variable | Meaning | Default |\n| --- | --- | --- |\n| `PORT` | The HTTP port | 3000 |\n| `HOST` | The address | |';
    const answer = composeAnswer('which HTTP port', [passage(text)], { citations: false });
    expect(answer.text).toBe('According to README.md: `PORT`: The HTTP port — Default: 3000');
  });

  it('introduces each source once, best first, with its sentences in document order', () => {
    const guide = (chunkIndex: number, text: string) =>
      passage(text, { sourceUuid: 'guide', title: 'Guide', fileName: 'guide.md', chunkIndex });
    const answer = composeAnswer(
      'kettle descaling vinegar schedule',
      [
        guide(4, 'Descale the kettle with vinegar.'),
        passage('The kettle schedule is weekly.'),
        guide(1, 'Kettle descaling takes an hour on this schedule.'),
      ],
      { citations: true },
    );
    expect(answer.text.match(/According to Guide:/g)).toHaveLength(1);
    expect(answer.text.indexOf('According to Guide:')).toBe(0);
    expect(answer.text.indexOf('Kettle descaling takes')).toBeLessThan(
      answer.text.indexOf('Descale the kettle'),
    );
    const markers = [...answer.text.matchAll(/\[(\d+\.\d+)\]/g)].map((m) => m[1]).sort();
    expect(markers).toEqual(Object.keys(answer.citeData).sort());
    expect(answer.text).toMatch(/Descale the kettle with vinegar\. \[1\.5\]/);
  });

  it('lets a heading lend its words to its section, also from a chunk further down', async () => {
    const filler = Array.from(
      { length: 30 },
      (_, i) => `Filler sentence number ${i} talks about nothing much at all here.`,
    ).join(' ');
    const text = `# Guide\n\nIntro words.\n\n## Connecting Slack\n\n${filler}\n\nPaste the manifest and copy the bot token.`;
    expect(chunkText(text).length).toBeGreaterThan(1);
    const index = testIndex();
    await index.add({
      uuid: 'g',
      chatbotUuid: 'b',
      title: 'guide.md',
      type: 'upload',
      fileName: 'guide.md',
      text,
    });
    const query = 'connect to Slack';
    const passages = await index.search('b', query);
    const last = passages.find((p) => p.text.includes('Paste the manifest'));
    expect(last?.section).toBe('Connecting Slack');
    const answer = composeAnswer(query, passages, { citations: false });
    expect(answer.text).not.toBe(NOT_FOUND_ANSWER);
  });
});

describe('composeAnswer follow-ups', () => {
  const kettle = passage(
    'How fast does the Zephyr kettle boil water?\n\nThe Zephyr kettle boils water in ninety seconds. Clean the kettle with vinegar once a month.',
    { sourceUuid: 'zephyr', title: 'Zephyr FAQ', chunkIndex: 0 },
  );
  const toaster = passage('Aurora toaster\n\nIts crumb tray slides out for cleaning.', {
    sourceUuid: 'aurora',
    title: 'aurora.md',
  });
  const history = [{ query: 'Tell me about the Zephyr kettle', response: '…' }];

  it('reads "it" with the earlier turn, and without it prefers the closer match', () => {
    const followUp = composeAnswer('How do I clean it?', [toaster, kettle], {
      citations: false,
      history,
    });
    expect(followUp.text).toMatch(/^According to Zephyr FAQ: Clean the kettle with vinegar/);
    const alone = composeAnswer('How do I clean it?', [toaster, kettle], { citations: false });
    expect(alone.text).toMatch(/^According to aurora\.md: Its crumb tray/);
  });

  it('still says it cannot find an unrelated question after a topic', () => {
    for (const query of ['Who won the chess olympiad?', 'What colour is it?']) {
      expect(composeAnswer(query, [kettle, toaster], { citations: true, history })).toEqual({
        text: NOT_FOUND_ANSWER,
        citeData: {},
      });
    }
  });
});

describe('composeAnswer on plain Q&A text', () => {
  it('answers with the answer line, never with the question it quotes', () => {
    const text = 'Q: How do I reset my password?\nA: Open settings and choose reset password.';
    const answer = composeAnswer('how to reset the password', [passage(text)], {
      citations: false,
    });
    expect(answer.text).toBe('According to README.md: Open settings and choose reset password.');
  });
});

describe('composeAnswer on a page that opens with its contents', () => {
  it('answers from the section, never with the table of contents that names it', () => {
    const contents = [
      '- [Class: WebSocketServer](#class-websocketserver)',
      '  - [new WebSocketServer(options)](#new-websocketserveroptions)',
      '  - [Event: close](#event-close)',
    ].join('\n');
    const section = 'It extends the `EventEmitter` and accepts connections.';
    const answer = composeAnswer(
      'what is the WebSocketServer class?',
      [
        passage(contents, { score: 10 }),
        passage(section, { chunkIndex: 4, section: 'Class: WebSocketServer', score: 2 }),
      ],
      { citations: false },
    );
    expect(answer.text).toBe(
      'According to README.md: It extends the `EventEmitter` and accepts connections.',
    );
  });
});

describe('composeAnswer on sections about what was asked', () => {
  const API = [
    '## Interceptors',
    '',
    'You can intercept requests or responses before they are handled.',
    '',
    'You can add interceptors to a custom instance of demo:',
    '',
    '```js',
    'instance.interceptors.request.use(() => {});',
    '```',
  ].join('\n');

  it('answers "what are X" with the first words under the heading X, not a later use of X', () => {
    const answer = composeAnswer('what are interceptors in demo?', [passage(API)], {
      citations: false,
    });
    expect(answer.text).toMatch(
      /^According to README\.md: You can intercept requests or responses/,
    );
  });

  it('reads on into the parts of the section (deeper headings), not into the next section', () => {
    const text = [
      '## Metrics',
      '',
      '### Summary',
      '',
      'Summaries calculate percentiles of observed values.',
      '',
      '#### Configuration',
      '',
      'The default percentiles can be overridden with a `percentiles` array.',
      '',
      '### Gauge',
      '',
      'Gauges go up and down.',
    ].join('\n');
    const answer = composeAnswer("what's a Summary metric?", [passage(text)], { citations: false });
    expect(answer.text).toContain('Summaries calculate percentiles of observed values.');
    expect(answer.text).toContain('**Configuration**');
    expect(answer.text).toContain('`percentiles` array');
    expect(answer.text).not.toContain('Gauges');
  });

  it('never counts the words of a link address as words the text says', () => {
    const install = [
      '## Installation',
      '',
      'Installation is done with the [`npm install` command](https://docs.npmjs.com/installing-npm-packages-locally):',
      '',
      '```sh',
      'npm install cookie',
      '```',
    ].join('\n');
    const serialize = [
      '### cookie.serialize(name, value)',
      '',
      'Serialize a cookie name-value pair into a `Set-Cookie` header string.',
    ].join('\n');
    const answer = composeAnswer(
      'how do i build a Set-Cookie header with the cookie package',
      [passage(install, { score: 3 }), passage(serialize, { chunkIndex: 2, score: 2 })],
      { citations: false },
    );
    expect(answer.text).toContain('Serialize a cookie name-value pair');
    expect(answer.text).not.toContain('npm install cookie');
  });
});

describe('composeAnswer on words a question writes apart', () => {
  it('reads "back up" as the passages\' backup, not as "back"', () => {
    const answer = composeAnswer(
      'how can I back up the database?',
      [
        passage('Go back to the database list when you are done.', { score: 1 }),
        passage('Call `db.backup(file)` to copy the database while the app is running.', {
          chunkIndex: 2,
          score: 1,
        }),
      ],
      { citations: false },
    );
    expect(answer.text).toBe(
      'According to README.md: Call `db.backup(file)` to copy the database while the app is running.',
    );
  });
});

describe('composeAnswer when the best passage holds too little of the question', () => {
  it('says it could not find it, though the passages together hold half of the words', () => {
    const answer = composeAnswer(
      'how do i convert a word docx to html',
      [
        passage('You can change the days and edit the wording of each reminder.', { score: 2 }),
        passage('Invoices in other currencies are converted at the daily rate.', {
          chunkIndex: 1,
          score: 1,
        }),
      ],
      { citations: false },
    );
    expect(answer.text).toBe(NOT_FOUND_ANSWER);
  });
});
