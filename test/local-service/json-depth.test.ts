import { describe, expect, it } from 'vitest';
import { checkJsonDepth, nestsDeeperThan } from '../../src/local-service/json-depth.js';

describe('nestsDeeperThan', () => {
  it.each([
    ['{}', 1, false],
    ['{}', 0, true],
    ['[[1],[2]]', 2, false],
    ['[[1],[[2]]]', 2, true],
    ['{"a":{"b":[1]}}', 3, false],
    ['{"a":{"b":[1]}}', 2, true],
    // Brackets in strings are text; escaped quotes and backslashes do not end a string early.
    ['["[[[[", "{{{{"]', 1, false],
    ['["\\"[[[["]', 1, false],
    ['["\\\\", [[1]]]', 2, true],
    ['["\\\\", [1]]', 2, false],
  ])('%s deeper than %i: %s', (text, limit, expected) => {
    expect(nestsDeeperThan(text, limit)).toBe(expected);
  });
});

describe('checkJsonDepth', () => {
  it('names the top-level field the deep value is under, or the root', () => {
    const deep = '['.repeat(40) + ']'.repeat(40);
    expect(() => checkJsonDepth(`{"ok":1,"tags":${deep}}`, 'body', 32)).toThrow(
      'tags: must not nest arrays and objects more than 32 levels deep',
    );
    expect(() => checkJsonDepth(`{"x":${deep}}`, 'meta_json', 32)).toThrow(/^meta_json\.x: /);
    expect(() => checkJsonDepth(deep, 'body', 32)).toThrow(/^body: /);
    expect(() => checkJsonDepth(`{"x":${deep}`, 'body', 32)).toThrow(/^body: /); // not JSON
    expect(() => checkJsonDepth(`{"x":[[1]]}`, 'body', 32)).not.toThrow();
  });
});
