import { CodedError, ErrorCode } from '../errors.js';
import type { DataSource } from './types.js';

export type ServiceErrorKind =
  | 'auth'
  | 'not_found'
  | 'validation'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'protocol';

export interface ServiceErrorDetails {
  status?: number;
  /** HTTP method and path of the request (never the key or the host's credentials). */
  method?: string;
  path?: string;
  /** The response body as text, as received (HTML bodies happen). */
  body?: string;
  /** The body parsed as JSON, when it parses. */
  json?: unknown;
  /** For validation: the field at fault and the rule it broke. */
  field?: string;
  rule?: string;
  /** For rate_limited: how long the server asked us to wait. */
  retryAfterMs?: number;
  /** For a stream that broke: the text received before it broke. */
  partialText?: string;
  /** For a 409 on upload/url add: the data source that already exists. */
  existing?: DataSource;
  cause?: unknown;
}

/** The one error type of the service client (and of the local service's validation). */
/** The code of each kind: what notices and statuses are chosen by. */
export const SERVICE_ERROR_CODES = {
  auth: ErrorCode.ServiceAuth,
  not_found: ErrorCode.ServiceNotFound,
  validation: ErrorCode.ServiceValidation,
  conflict: ErrorCode.ServiceConflict,
  rate_limited: ErrorCode.ServiceRateLimited,
  unavailable: ErrorCode.ServiceUnavailable,
  timeout: ErrorCode.ServiceTimeout,
  protocol: ErrorCode.ServiceProtocol,
} as const satisfies Record<ServiceErrorKind, ErrorCode>;

export class ServiceError extends CodedError {
  readonly kind: ServiceErrorKind;
  readonly status?: number;
  readonly method?: string;
  readonly path?: string;
  readonly body?: string;
  readonly json?: unknown;
  readonly field?: string;
  readonly rule?: string;
  readonly retryAfterMs?: number;
  readonly partialText?: string;
  readonly existing?: DataSource;

  constructor(kind: ServiceErrorKind, message: string, details: ServiceErrorDetails = {}) {
    super(SERVICE_ERROR_CODES[kind], message, { cause: details.cause });
    this.name = 'ServiceError';
    this.kind = kind;
    this.status = details.status;
    this.method = details.method;
    this.path = details.path;
    this.body = details.body;
    this.json = details.json;
    this.field = details.field;
    this.rule = details.rule;
    this.retryAfterMs = details.retryAfterMs;
    this.partialText = details.partialText;
    this.existing = details.existing;
  }

  /** A value we were about to send breaks a rule: names the field and the rule. */
  static validation(field: string, rule: string): ServiceError {
    return new ServiceError('validation', `${field}: ${rule}`, { field, rule });
  }
}

export function isServiceError(error: unknown, kind?: ServiceErrorKind): error is ServiceError {
  return error instanceof ServiceError && (kind === undefined || error.kind === kind);
}
