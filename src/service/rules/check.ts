// Runs a rule and turns its first failure into a ServiceError of kind "validation":
// "field: rule", the field in the notation people read (rate_limit[0], meta.tags[1].color).
import type { z } from 'zod';
import { ServiceError } from '../errors.js';

/** ["meta", "tags", 1, "color"] → "meta.tags[1].color"; [] → the root's name. */
export function fieldOf(path: readonly PropertyKey[], root: string): string {
  let field = root === 'body' && path.length > 0 ? '' : root;
  for (const part of path) {
    const name = String(part);
    field += typeof part === 'number' ? `[${name}]` : field === '' ? name : `.${name}`;
  }
  return field;
}

/** The first issue of a failed parse as "field: rule". */
export function issueToError(issue: z.core.$ZodIssue, root: string): ServiceError {
  let field = fieldOf(issue.path, root);
  const label = issue.code === 'custom' ? issue.params?.label : undefined;
  if (typeof label === 'string') field += ` (${label})`;
  return ServiceError.validation(field, issue.message);
}

/**
 * The value as the rule's type when it keeps the rule; throws the first fault otherwise.
 * The value itself is returned (not zod's copy), so what is sent is exactly what was given.
 */
export function checkWith<Rule extends z.ZodType>(
  rule: Rule,
  value: unknown,
  root = 'body',
): z.input<Rule> {
  const result = rule.safeParse(value);
  if (!result.success) throw issueToError(result.error.issues[0]!, root);
  return value as z.input<Rule>;
}
