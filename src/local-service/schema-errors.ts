// A Fastify schema failure, answered in the service's error shape. The body's rules are worded
// by the route's validate.ts check when it finds the same fault (so the message is the one the
// client gives for that value); otherwise, and for params, the Ajv error is worded here:
// "field: rule", the field in the same notation (rate_limit[0], meta.temperature).
import { isServiceError } from '../service/errors.js';
import { requireId } from '../service/validate.js';
import { HttpError } from './http-errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's validate.ts check of its body (run by the handler, reused for wording). */
    check?: (body: unknown) => unknown;
  }
}

export interface AjvIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

const ARTICLE: Record<string, string> = {
  array: 'an array',
  object: 'an object',
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  null: 'null',
};

/** "/rate_limit/0" → "rate_limit[0]", "/meta/temperature" → "meta.temperature". */
export function fieldOf(instancePath: string, root: string): string {
  const parts = instancePath.split('/').slice(1);
  let field = '';
  for (const part of parts) {
    const name = part.replace(/~1/g, '/').replace(/~0/g, '~');
    field += /^\d+$/.test(name) ? `[${name}]` : field === '' ? name : `.${name}`;
  }
  return field === '' ? root : field;
}

export function ajvIssueToError(issue: AjvIssue, root: string): HttpError {
  let field = fieldOf(issue.instancePath, root);
  let rule: string;
  switch (issue.keyword) {
    case 'required': {
      const missing = String(issue.params.missingProperty ?? '');
      field = field === root ? missing : `${field}.${missing}`;
      rule = 'is required';
      break;
    }
    case 'type': {
      const types = [issue.params.type].flat().map((t) => ARTICLE[String(t)] ?? String(t));
      rule = `must be ${types.join(' or ')}`;
      break;
    }
    case 'minLength':
      rule = 'must not be empty';
      break;
    case 'pattern':
      rule = 'must not contain "/", "?", "#" or spaces';
      break;
    default:
      rule = issue.message ?? 'is not valid';
  }
  return HttpError.badRequest(field, rule);
}

interface SchemaFailure {
  validation: AjvIssue[];
  validationContext?: string;
}

export function isSchemaFailure(error: unknown): error is SchemaFailure {
  return Array.isArray((error as { validation?: unknown } | null)?.validation);
}

/** The HttpError for a schema failure of a request with this body / params / route check. */
export function schemaFailureToError(
  failure: SchemaFailure,
  request: { body?: unknown; params?: unknown; check?: (body: unknown) => unknown },
): HttpError {
  const context = failure.validationContext ?? 'body';
  try {
    if (context === 'body' && request.check) request.check(request.body);
    if (context === 'params') {
      const uuid = (request.params as Record<string, unknown> | undefined)?.uuid;
      requireId(uuid, 'uuid');
    }
  } catch (error) {
    if (isServiceError(error, 'validation')) {
      return new HttpError(400, 'validation', error.message, { field: error.field });
    }
    throw error;
  }
  const first = failure.validation[0];
  if (!first) return HttpError.badRequest(context, 'is not valid');
  return ajvIssueToError(first, context);
}
