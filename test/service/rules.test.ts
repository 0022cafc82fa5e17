// Every rule words every fault itself: no value of the wrong type reaches zod's default
// wording ("Invalid input: …"), whichever field it is put in.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as rules from '../../src/service/rules/bodies.js';
import { checkWith } from '../../src/service/rules/check.js';
import { ServiceError } from '../../src/service/errors.js';

const WRONG: unknown[] = [
  '',
  ' ',
  'x',
  0,
  -1,
  1.5,
  2,
  1e9,
  true,
  null,
  [],
  [1, 2, 3],
  {},
  { a: [] },
];

/** The field names of an object rule, whatever wraps it. */
const keysOf = (rule: z.ZodType): string[] =>
  rule instanceof z.ZodObject ? Object.keys(rule.shape) : [];

describe('rule wording', () => {
  // The rules as plain ZodTypes, never narrowed to ZodObject and compared back: that comparison
  // cost the type checker a second and a half measuring zod's generics.
  const all = Object.entries(rules as unknown as Record<string, z.ZodType>);
  const isObject = (rule: unknown): boolean => rule instanceof z.ZodObject;
  const bodies = all.filter(([, rule]) => isObject(rule));

  it('covers every body rule', () => {
    expect(bodies.map(([name]) => name)).toEqual(
      expect.arrayContaining(['chatbotCreate', 'agentUpdate', 'upload', 'sessionCreate']),
    );
  });

  for (const [name, rule] of bodies) {
    it(`${name}: every field refuses wrong values in its own words`, () => {
      for (const key of keysOf(rule)) {
        for (const value of WRONG) {
          let error: unknown;
          try {
            checkWith(rule, { [key]: value });
          } catch (e) {
            error = e;
          }
          if (error === undefined) continue; // a value this field (and the rest) accepts
          expect(error).toBeInstanceOf(ServiceError);
          const { message, rule: words } = error as ServiceError;
          expect(words, `${name}.${key} = ${JSON.stringify(value)}: ${message}`).not.toMatch(
            /^(Invalid|Too (big|small)|Expected)/,
          );
          expect(words).toMatch(/^(must|is required|unexpected)/);
        }
      }
    });
  }

  it('says what is wrong with a nested value, with its path', () => {
    expect(() => checkWith(rules.chatbotCreate, { name: 'a', rate_limit: [1, 2, 3] })).toThrow(
      'rate_limit: must be [count, seconds]',
    );
    expect(() => checkWith(rules.chatbotCreate, { name: 'a', rate_limit: ['x', 5] })).toThrow(
      'rate_limit[0] (messages): must be a whole number from 1 to 100',
    );
    expect(() =>
      checkWith(rules.agentUpdate, { variables: [{ name: 'v', default_value: 'x' }] }),
    ).toThrow('variables[0].default_value: must be an object');
    expect(() => checkWith(rules.agentUpdate, { tags: [{}] })).toThrow(
      'tags[0].name: is required and must be a string',
    );
  });
});
