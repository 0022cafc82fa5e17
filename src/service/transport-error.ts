// A failure below HTTP (connect, reset, timeout, broken framing) reported by undici, as the
// ServiceError the caller sees: it names the method and path only, never the key or the full URL.
import { errors } from 'undici';
import { ServiceError } from './errors.js';
import type { CallScope } from './scope.js';

/** Errors that prove the request never left this machine: safe to retry for any method. */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The dispatcher was closed: a call after the client's close(). */
const CLOSED_CLIENT_CODES = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  // Node's happy-eyeballs connect reports an AggregateError of the per-address failures.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  return e.cause === undefined ? undefined : errorCode(e.cause);
}

/** True when the failure happened while connecting, before any byte of the request was sent. */
export function neverReachedServer(error: unknown): boolean {
  return error instanceof ServiceError && CONNECT_CODES.has(errorCode(error.cause) ?? '');
}

/** A failure below HTTP (connect, reset, abort) as what the caller should see. */
export function transportError(error: unknown, scope: CallScope): unknown {
  if (scope.aborted) return scope.reason;
  if (error instanceof ServiceError) return error;
  const { method, path } = scope.where;
  const code = errorCode(error) ?? 'unknown';
  const details = { method, path, cause: error };
  // undici's parser refused the response: its message names the rule (bad chunk size, ...).
  if (error instanceof errors.HTTPParserError) {
    const rule = error.message.replace(/^Response does not match the HTTP\/1\.1 protocol /, '');
    return new ServiceError(
      'protocol',
      `${method} ${path}: the response broke HTTP/1.1 ${rule}`,
      details,
    );
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return new ServiceError(
      'protocol',
      `${method} ${path}: the response head is too large`,
      details,
    );
  }
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return new ServiceError(
      'protocol',
      `${method} ${path}: the response body does not match its content-length`,
      details,
    );
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new ServiceError('timeout', `${method} ${path}: connect timed out`, details);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new ServiceError('timeout', `${method} ${path}: response timed out`, details);
  }
  if (CLOSED_CLIENT_CODES.has(code)) {
    return new ServiceError('unavailable', `${method} ${path}: the client is closed`, details);
  }
  if (code === 'UND_ERR_SOCKET') {
    return new ServiceError(
      'unavailable',
      `${method} ${path}: the service closed the connection before the response ended`,
      details,
    );
  }
  if (CONNECT_CODES.has(code)) {
    return new ServiceError(
      'unavailable',
      `${method} ${path}: cannot connect to the service (${code})`,
      details,
    );
  }
  return new ServiceError(
    'unavailable',
    `${method} ${path}: connection to the service failed (${code})`,
    details,
  );
}
