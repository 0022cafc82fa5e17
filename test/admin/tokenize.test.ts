import { describe, expect, it } from 'vitest';
import { AdminInputError, parseCommandLine } from '../../src/admin/index.js';

const words = (line: string) => parseCommandLine(line).tokens;

describe('parseCommandLine', () => {
  it('splits on any whitespace and ignores runs of it', () => {
    expect(words('  chatbot \t list  ')).toEqual(['chatbot', 'list']);
    expect(words('')).toEqual([]);
  });

  it('keeps double-quoted text as one word, with backslash escapes inside', () => {
    expect(words('chatbot create "Support bot" --visibility public')).toEqual([
      'chatbot',
      'create',
      'Support bot',
      '--visibility',
      'public',
    ]);
    expect(words('x "say \\"hi\\" \\\\ now"')).toEqual(['x', 'say "hi" \\ now']);
    expect(words('x "line1\\nline2\\tend"')).toEqual(['x', 'line1\nline2\tend']);
  });

  it('keeps single-quoted text literally', () => {
    expect(words('x \'a \\n "b"\' y')).toEqual(['x', 'a \\n "b"', 'y']);
  });

  it('joins quoted and unquoted parts of one word', () => {
    expect(words('--title="A b"c --x=\'d e\'')).toEqual(['--title=A bc', '--x=d e']);
  });

  it('treats a mid-word apostrophe as a letter', () => {
    expect(words("source add-qa What's up")).toEqual(['source', 'add-qa', "What's", 'up']);
  });

  it('escapes outside quotes: a backslash keeps the next character', () => {
    expect(words('a\\ b c\\"d')).toEqual(['a b', 'c"d']);
  });

  it('gives an empty word for ""', () => {
    expect(words('x "" y')).toEqual(['x', '', 'y']);
  });

  it('accepts typographic double quotes from chat clients', () => {
    expect(words('chatbot create \u201cSupport bot\u201d')).toEqual([
      'chatbot',
      'create',
      'Support bot',
    ]);
  });

  it('names an unclosed quote and a lone trailing backslash', () => {
    expect(() => words('x "open')).toThrow(AdminInputError);
    expect(() => words('x "open')).toThrow(/double quote/);
    expect(() => words("x 'open")).toThrow(/single quote/);
    expect(() => words('x \\')).toThrow(/backslash/);
  });
});
