// A Fastify schema failure, answered in the service's error shape. The route schemas come from
// the interface's rules, so the rule finds the same fault and words it ("field: rule", as the
// client would say it); Ajv's own words are only a fallback should the two ever disagree.
import { isServiceError } from '../service/errors.js';
import { fieldOf } from '../service/rules/check.js';
import { requireId } from '../service/validate.js';
import { HttpError } from './http-errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's body rule (run by the handler too, reused here for wording). */
    check?: (body: unknown) => unknown;
  }
}

export interface AjvIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

interface SchemaFailure {
  validation: AjvIssue[];
  validationContext?: string;
}

export function isSchemaFailure(error: unknown): error is SchemaFailure {
  return Array.isArray((error as { validation?: unknown } | null)?.validation);
}

/** "/rate_limit/0" → ["rate_limit", 0]. */
function pathOf(instancePath: string): (string | number)[] {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** The HttpError for a schema failure of a request with this body / params / route check. */
export function schemaFailureToError(
  failure: SchemaFailure,
  request: { body?: unknown; params?: unknown; check?: (body: unknown) => unknown },
): HttpError {
  const context = failure.validationContext ?? 'body';
  try {
    if (context === 'body') request.check?.(request.body);
    if (context === 'params') {
      requireId((request.params as Record<string, unknown> | undefined)?.uuid, 'uuid');
    }
  } catch (error) {
    if (isServiceError(error, 'validation')) {
      return new HttpError(400, 'validation', error.message, { field: error.field });
    }
    throw error;
  }
  const first = failure.validation[0];
  const field = fieldOf(pathOf(first?.instancePath ?? ''), context);
  return HttpError.badRequest(field, first?.message ?? 'is not valid');
}
