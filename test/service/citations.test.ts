import { describe, expect, it } from 'vitest';
import { createMarkerNumberer, parseCitations } from '../../src/service/citations.js';
import type { CiteEntry } from '../../src/service/types.js';

const entry = (uuid: string, extra: Partial<CiteEntry> = {}): CiteEntry => ({
  data_source_uuid: uuid,
  title: `Title ${uuid}`,
  text: `passage of ${uuid}`,
  file_name: `${uuid}.pdf`,
  type: 'file',
  ...extra,
});

describe('parseCitations', () => {
  it('numbers markers in order of first use; the same marker keeps its number', () => {
    const result = parseCitations({
      response: 'Paris is big [3.4]. It has a tower [1.2][3.4]. Again [1.2].',
      cite_data: { '1.2': entry('b'), '3.4': entry('a') },
    });
    expect(result.text).toBe('Paris is big [1]. It has a tower [2][1]. Again [2].');
    expect(result.citations).toEqual([
      {
        number: 1,
        marker: '3.4',
        markers: ['3.4'],
        passages: ['passage of a'],
        dataSourceUuid: 'a',
        title: 'Title a',
        passage: 'passage of a',
        fileName: 'a.pdf',
      },
      {
        number: 2,
        marker: '1.2',
        markers: ['1.2'],
        passages: ['passage of b'],
        dataSourceUuid: 'b',
        title: 'Title b',
        passage: 'passage of b',
        fileName: 'b.pdf',
      },
    ]);
  });

  it('gives two passages of one data source one number, listed once', () => {
    const result = parseCitations({
      response: 'First [1.1]. Other [2.1]. Same source again [1.5].',
      cite_data: { '1.1': entry('a'), '2.1': entry('b'), '1.5': entry('a') },
    });
    expect(result.text).toBe('First [1]. Other [2]. Same source again [1].');
    expect(result.citations.map((c) => [c.number, c.dataSourceUuid, c.markers])).toEqual([
      [1, 'a', ['1.1', '1.5']],
      [2, 'b', ['2.1']],
    ]);
    expect(result.citations[0]!.passages).toHaveLength(2);
  });

  it('removes markers without an entry and collapses the space before them', () => {
    const { text, citations } = parseCitations({
      response: 'One [9.9]. Two [9.8] words. [7.7] Start of line.\n[5.5.1] Also here, end [2.2]',
      cite_data: {},
    });
    expect(text).toBe('One. Two words. Start of line.\nAlso here, end');
    expect(citations).toEqual([]);
  });

  it('removes an unknown marker next to a known one', () => {
    const { text } = parseCitations({
      response: 'Fact [1.1] [8.8].',
      cite_data: { '1.1': entry('a') },
    });
    expect(text).toBe('Fact [1].');
  });

  it('leaves ordinary bracketed text and markdown links alone', () => {
    const response = 'See [1] and [note], a [link](https://e.com), [3.4](x), code a[i] and [ ].';
    expect(parseCitations({ response, cite_data: {} }).text).toBe(response);
  });

  it('treats any key of cite_data as a marker, whatever its shape', () => {
    const { text, citations } = parseCitations({
      response: 'Odd [doc-7] and bracketed key [2.1].',
      cite_data: { 'doc-7': entry('x'), '[2.1]': entry('y') },
    });
    expect(text).toBe('Odd [1] and bracketed key [2].');
    expect(citations.map((c) => c.marker)).toEqual(['doc-7', '2.1']);
  });

  it('finds the link in the entry, then the sources lookup, then an http file name', () => {
    const cite_data = {
      '1.1': entry('a', { url: 'https://a.example/page' }),
      '1.2': entry('b', { reference_source_link: 'https://b.example' }),
      '1.3': entry('c'),
      '1.4': entry('d', { file_name: 'https://d.example/file.html' }),
      '1.5': entry('e', { link: 'javascript:alert(1)' }),
    };
    const { citations } = parseCitations(
      { response: '[1.1][1.2][1.3][1.4][1.5]', cite_data },
      {
        sources: (uuid) =>
          uuid === 'c' ? { link: 'https://c.example/doc', title: 'C' } : undefined,
      },
    );
    expect(citations.map((c) => c.link)).toEqual([
      'https://a.example/page',
      'https://b.example',
      'https://c.example/doc',
      'https://d.example/file.html',
      undefined,
    ]);
    expect(citations[4]).not.toHaveProperty('link');
  });

  it('uses the source title when the entry has none', () => {
    const { citations } = parseCitations(
      { response: 'x [1.1]', cite_data: { '1.1': entry('a', { title: '' }) } },
      { sources: () => ({ title: 'From lookup' }) },
    );
    expect(citations[0]!.title).toBe('From lookup');
  });

  it('leaves text with no markers untouched', () => {
    const response = '  Lines\n\nwith spacing  ';
    expect(parseCitations({ response, cite_data: {} })).toEqual({ text: response, citations: [] });
  });
});

describe('createMarkerNumberer', () => {
  it('numbers markers live, stable across calls, holding back an incomplete one', () => {
    const live = createMarkerNumberer();
    expect(live.render('Paris [3.')).toBe('Paris ');
    expect(live.render('Paris [3.4] and [1')).toBe('Paris [1] and ');
    expect(live.render('Paris [3.4] and [1.2] and [3.4] [note] [1]')).toBe(
      'Paris [1] and [2] and [1] [note] [1]',
    );
    expect(live.numberOf('1.2')).toBe(2);
    expect(live.numberOf('[3.4]')).toBe(1);
    expect(live.numberOf('9.9')).toBeUndefined();
  });

  it('numbers live by source (the first part of the key), like the final per-source numbers', () => {
    const response = 'A [3.4] b [1.1] c [3.7].';
    const live = createMarkerNumberer().render(response);
    const final = parseCitations({
      response,
      cite_data: { '3.4': entry('a'), '1.1': entry('b'), '3.7': entry('a') },
    });
    expect(live).toBe('A [1] b [2] c [1].');
    expect(live).toBe(final.text);
  });

  it('agrees with parseCitations when every marker has an entry', () => {
    const response = 'A [2.2] b [1.1] c [2.2].';
    const live = createMarkerNumberer().render(response);
    const final = parseCitations({ response, cite_data: { '1.1': entry('a'), '2.2': entry('b') } });
    expect(live).toBe(final.text);
  });
});
