import { describe, expect, it } from 'vitest';
import { resolveSources } from '../../src/bridge/sources.js';
import { parseCitations } from '../../src/service/citations.js';
import type { CiteEntry } from '../../src/service/types.js';
import { memoryState } from './helpers/memory-state.js';

const entry = (uuid: string, extra: Partial<CiteEntry> = {}): CiteEntry => ({
  data_source_uuid: uuid,
  title: `Title ${uuid}`,
  text: 'passage',
  file_name: '',
  type: 'file',
  ...extra,
});

describe('source links', () => {
  it('takes the link from the entry, the registry, the meta, then a URL file name', async () => {
    const { state, sources } = memoryState();
    sources.set('ds-reg', {
      uuid: 'ds-reg',
      chatbotUuid: 'bot-1',
      title: 'Registered title',
      type: 'url',
      link: 'https://registry.example/page',
      createdAt: '',
    });
    const citeData = {
      '1.1': entry('ds-entry', { url: 'https://entry.example/a' }),
      '2.1': entry('ds-reg', {
        title: '',
        meta: { reference_source_link: 'https://meta.example/x' },
      }),
      '3.1': entry('ds-meta', { meta_json: '{"reference_source_link":"https://meta.example/b"}' }),
      '4.1': entry('ds-file', { file_name: 'https://file.example/c' }),
      '5.1': entry('ds-none', { title: '', file_name: 'notes.pdf' }),
    };
    const { text, citations } = parseCitations({
      response: 'a [1.1] b [2.1] c [3.1] d [4.1] e [5.1] f [7.7].',
      cite_data: citeData,
    });
    expect(text).toBe('a [1] b [2] c [3] d [4] e [5] f.');
    const resolved = await resolveSources(citations, citeData, state.sources);
    expect(resolved.map((s) => [s.number, s.title, s.link])).toEqual([
      [1, 'Title ds-entry', 'https://entry.example/a'],
      [2, 'Registered title', 'https://registry.example/page'],
      [3, 'Title ds-meta', 'https://meta.example/b'],
      [4, 'Title ds-file', 'https://file.example/c'],
      [5, 'notes.pdf', undefined],
    ]);
  });

  it('still lists a source when the registry lookup fails', async () => {
    const { state } = memoryState();
    state.sources.get = async () => {
      throw new Error('store down');
    };
    const errors: unknown[] = [];
    const citeData = { '1.1': entry('ds-x') };
    const { citations } = parseCitations({ response: 'x [1.1]', cite_data: citeData });
    const resolved = await resolveSources(citations, citeData, state.sources, (e) =>
      errors.push(e),
    );
    expect(resolved).toEqual([{ number: 1, title: 'Title ds-x', dataSourceUuid: 'ds-x' }]);
    expect(errors).toHaveLength(1);
  });
});
