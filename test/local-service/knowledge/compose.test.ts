import { describe, expect, it } from 'vitest';
import {
  composeAnswer,
  NOT_FOUND_ANSWER,
  type Passage,
  type SourceText,
} from '../../../src/local-service/knowledge/index.js';
import { testIndex } from './test-index.js';

const BOT = 'bot';
const SOURCES: SourceText[] = [
  {
    uuid: 'src-install',
    chatbotUuid: BOT,
    title: 'Installation guide',
    type: 'upload',
    fileName: 'install.md',
    text:
      '# Installing\n\nChatbridge runs on Node 20. Run npm install chatbridge to install it. ' +
      'The weather has nothing to do with this.\n\n# Starting\n\nStart the bridge with npx chatbridge start.',
  },
  {
    uuid: 'src-widget',
    chatbotUuid: BOT,
    title: 'Widget FAQ',
    type: 'qa',
    fileName: '',
    text: 'How do I change the widget colour?\n\nOpen the settings page and pick a new widget colour.',
  },
  {
    uuid: 'src-refund',
    chatbotUuid: BOT,
    title: 'Refunds',
    type: 'url',
    fileName: 'https://example.com/refunds',
    link: 'https://example.com/refunds',
    text: 'Refunds are issued within 30 days of purchase. Our office is in Lisbon.',
  },
];

async function retrieve(query: string, context?: string): Promise<Passage[]> {
  const index = testIndex();
  for (const source of SOURCES) await index.add(source);
  return index.search(BOT, query, context === undefined ? {} : { context });
}

describe('composeAnswer', () => {
  it('answers with the passage the best sentence opens, to its section’s end, naming the source', async () => {
    const query = 'How do I install chatbridge?';
    const answer = composeAnswer(query, await retrieve(query), { citations: false });
    // The rest of its paragraph reads on; the next section ("# Starting") is not taken.
    expect(answer.text).toBe(
      'According to Installation guide: Run npm install chatbridge to install it. The weather has nothing to do with this.',
    );
    expect(answer.citeData).toEqual({});
  });

  it('puts [source.chunk] markers after the sentences and explains each key', async () => {
    const query = 'How do I install chatbridge?';
    const answer = composeAnswer(query, await retrieve(query), { citations: true });
    expect(answer.text).toBe(
      'According to Installation guide: Run npm install chatbridge to install it. The weather has nothing to do with this. [1.1]',
    );
    expect(answer.citeData).toEqual({
      '1.1': {
        data_source_uuid: 'src-install',
        title: 'Installation guide',
        text: SOURCES[0]!.text,
        file_name: 'install.md',
        type: 'upload',
      },
    });
  });

  it('answers a Q&A source with its answer, not its question', async () => {
    const query = 'how can I change the colour of the widget';
    const answer = composeAnswer(query, await retrieve(query), { citations: true });
    // The title of a Q&A source is its question: it is not introduced as "According to …".
    expect(answer.text).toBe('Open the settings page and pick a new widget colour. [1.1]');
    expect(answer.citeData['1.1']).toMatchObject({ type: 'qa' });
  });

  it('draws on two sources when the question spans them, with links kept', async () => {
    const query = 'refunds within 30 days and npm install';
    const answer = composeAnswer(query, await retrieve(query), { citations: true });
    const paragraphs = answer.text.split('\n\n');
    expect(paragraphs).toHaveLength(2);
    expect(answer.text).toContain(
      'According to Refunds: Refunds are issued within 30 days of purchase.',
    );
    expect(answer.text).toContain(
      'According to Installation guide: Run npm install chatbridge to install it.',
    );
    const refundKey = Object.keys(answer.citeData).find(
      (k) => answer.citeData[k]!.data_source_uuid === 'src-refund',
    )!;
    expect(refundKey).toMatch(/^\d+\.\d+$/);
    expect(answer.text).toContain(`[${refundKey}]`);
    expect(answer.citeData[refundKey]).toMatchObject({
      link: 'https://example.com/refunds',
      type: 'url',
    });
    // every marker in the text has a key, every key a marker
    const markers = [...answer.text.matchAll(/\[(\d+\.\d+)\]/g)].map((m) => m[1]);
    expect(markers.sort()).toEqual(Object.keys(answer.citeData).sort());
  });

  it('uses the earlier turn for a follow-up', async () => {
    const history = [{ query: 'Tell me about chatbridge', response: '…' }];
    const query = 'and how do I start it?';
    const answer = composeAnswer(query, await retrieve(query, history[0]!.query), {
      citations: false,
      history,
    });
    expect(answer.text).toBe(
      'According to Installation guide: Start the bridge with npx chatbridge start.',
    );
  });

  it('says honestly when nothing matches', async () => {
    for (const query of ['What is the capital of France?', 'hello', '?']) {
      const answer = composeAnswer(query, await retrieve(query), { citations: true });
      expect(answer).toEqual({ text: NOT_FOUND_ANSWER, citeData: {} });
    }
    // Passages that share one word of a many-word question do not count as an answer.
    const query = 'which office handles weather data exports in Berlin';
    expect(composeAnswer(query, await retrieve(query), { citations: false }).text).toBe(
      NOT_FOUND_ANSWER,
    );
    expect(composeAnswer('install', [], { citations: true })).toEqual({
      text: NOT_FOUND_ANSWER,
      citeData: {},
    });
  });
});
